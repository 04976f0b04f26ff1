package io.isthmus.client.rdma;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProduceAccessResponseTest {
    @Test
    void shouldRoundTripWithAnUnsignedSegmentId() {
        final ProduceAccessResponse response =
                new ProduceAccessResponse((short) 0, 65000, 0x7001, 0x7f00_0000_1000L, 4096, 1 << 30, 500, 0);

        assertThat(ControlMessagesRoundTrip.roundTrip(response, ProduceAccessResponse::decode))
                .isEqualTo(response);
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
