package io.isthmus.protocol.control;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ReleaseAccessRequestTest {
    @Test
    void shouldRoundTrip() {
        final ReleaseAccessRequest request = new ReleaseAccessRequest("t", 1, ReleaseAccessRequest.PRODUCE);

        assertThat(ControlMessagesRoundTrip.roundTrip(request, ReleaseAccessRequest::decode))
                .isEqualTo(request);
    }
}
