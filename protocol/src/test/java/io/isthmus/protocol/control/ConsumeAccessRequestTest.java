package io.isthmus.protocol.control;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ConsumeAccessRequestTest {
    @Test
    void shouldRoundTrip() {
        final ConsumeAccessRequest request = new ConsumeAccessRequest("events", 7, 1L << 40);

        assertThat(ControlMessagesRoundTrip.roundTrip(request, ConsumeAccessRequest::decode))
                .isEqualTo(request);
    }
}
