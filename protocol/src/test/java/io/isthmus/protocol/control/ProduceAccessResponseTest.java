package io.isthmus.protocol.control;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProduceAccessResponseTest {
    @Test
    void shouldRoundTripWithAnUnsignedSegmentId() {
        final ProduceAccessResponse response =
                ProduceAccessResponse.exclusive(65000, 0x7001, 0x7f00_0000_1000L, 4096, 1 << 30, 500, 0);

        final ProduceAccessResponse decoded =
                ControlMessagesRoundTrip.roundTrip(response, ProduceAccessResponse::decode);
        assertThat(decoded).isEqualTo(response);
        assertThat(decoded.segmentId()).isEqualTo(65000);
        assertThat(decoded.shared()).isFalse();
    }

    @Test
    void shouldRoundTripASharedGrantWithItsReservationWord() {
        final ProduceAccessResponse response = new ProduceAccessResponse(
                (short) 0,
                7,
                0x1234,
                0x7f00_0000_0000L,
                0,
                1 << 20,
                42,
                0,
                ProduceAccessResponse.SHARED,
                0x7f11_2222_3338L,
                0xbeef);

        final ProduceAccessResponse decoded =
                ControlMessagesRoundTrip.roundTrip(response, ProduceAccessResponse::decode);
        assertThat(decoded).isEqualTo(response);
        assertThat(decoded.shared()).isTrue();
        assertThat(decoded.wordAddress()).isEqualTo(0x7f11_2222_3338L);
        assertThat(decoded.wordRkey()).isEqualTo(0xbeef);
    }

    @Test
    void shouldRoundTripAnError() {
        assertThat(ControlMessagesRoundTrip.roundTrip(
                                ProduceAccessResponse.error(ControlErrorCodes.ACCESS_HELD),
                                ProduceAccessResponse::decode)
                        .errorCode())
                .isEqualTo(ControlErrorCodes.ACCESS_HELD);
    }
}
