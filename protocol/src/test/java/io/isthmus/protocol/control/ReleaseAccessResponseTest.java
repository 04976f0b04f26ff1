package io.isthmus.protocol.control;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ReleaseAccessResponseTest {
    @Test
    void shouldRoundTrip() {
        assertThat(ControlMessagesRoundTrip.roundTrip(
                        new ReleaseAccessResponse(ControlErrorCodes.UNKNOWN_TOPIC_OR_PARTITION),
                        ReleaseAccessResponse::decode))
                .isEqualTo(new ReleaseAccessResponse(ControlErrorCodes.UNKNOWN_TOPIC_OR_PARTITION));
    }
}
