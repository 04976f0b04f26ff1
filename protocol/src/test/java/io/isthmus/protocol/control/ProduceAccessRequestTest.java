package io.isthmus.protocol.control;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProduceAccessRequestTest {
    @Test
    void shouldRoundTripAFirstRequest() {
        final ProduceAccessRequest decoded =
                ControlMessagesRoundTrip.roundTrip(ProduceAccessRequest.of("orders", 3), ProduceAccessRequest::decode);

        assertThat(decoded).isEqualTo(ProduceAccessRequest.of("orders", 3));
        assertThat(decoded.rollsFullSegment()).isFalse();
    }

    @Test
    void shouldRoundTripARollRequest() {
        final ProduceAccessRequest decoded = ControlMessagesRoundTrip.roundTrip(
                ProduceAccessRequest.rollFull("ørders", 0, 65535), ProduceAccessRequest::decode);

        assertThat(decoded.topic()).isEqualTo("ørders");
        assertThat(decoded.rollsFullSegment()).isTrue();
        assertThat(decoded.fullSegmentId()).isEqualTo(65535);
        assertThat(decoded.shared()).isFalse();
    }

    @Test
    void shouldRoundTripASharedRollWithTheOrderThatOverflowed() {
        final ProduceAccessRequest decoded = ControlMessagesRoundTrip.roundTrip(
                ProduceAccessRequest.rollFullShared("orders", 1, 12, 65534), ProduceAccessRequest::decode);

        assertThat(decoded).isEqualTo(ProduceAccessRequest.rollFullShared("orders", 1, 12, 65534));
        assertThat(decoded.shared()).isTrue();
        assertThat(decoded.rollsFullSegment()).isTrue();
        assertThat(decoded.fullOrder()).isEqualTo(65534);
        assertThat(ProduceAccessRequest.shared("orders", 1).rollsFullSegment()).isFalse();
    }
}
