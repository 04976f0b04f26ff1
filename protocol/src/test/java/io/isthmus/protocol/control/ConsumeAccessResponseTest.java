package io.isthmus.protocol.control;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ConsumeAccessResponseTest {
    @Test
    void shouldRoundTripEveryField() {
        final ConsumeAccessResponse response = new ConsumeAccessResponse(
                (short) 0, 40000, 11, 0x1000, 64, 4096, 1 << 20, 300, 0x2000, 12, 3, 4, ConsumeAccessResponse.SEALED);

        final ConsumeAccessResponse decoded =
                ControlMessagesRoundTrip.roundTrip(response, ConsumeAccessResponse::decode);

        assertThat(decoded).isEqualTo(response);
        assertThat(decoded.sealed()).isTrue();
    }

    @Test
    void shouldRoundTripAnError() {
        final ConsumeAccessResponse decoded = ControlMessagesRoundTrip.roundTrip(
                ConsumeAccessResponse.error(ControlErrorCodes.OFFSET_OUT_OF_RANGE), ConsumeAccessResponse::decode);

        assertThat(decoded.errorCode()).isEqualTo(ControlErrorCodes.OFFSET_OUT_OF_RANGE);
        assertThat(decoded.sealed()).isFalse();
    }
}
