package io.isthmus.protocol.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ControlFlyweightTest {
    @Test
    void shouldZeroTheBlockAndNullTheStringWhenWrappedForEncoding() {
        final byte[] bytes = new byte[32];
        Arrays.fill(bytes, (byte) 0x5a);

        final ConsumeAccessRequest request = new ConsumeAccessRequest().wrapForEncode(MemorySegment.ofArray(bytes), 0);

        assertThat(Arrays.copyOfRange(bytes, 0, ConsumeAccessRequest.TOPIC_OFFSET))
                .containsOnly(0);
        assertThat(request.topic()).isNull();
        assertThat(request.encodedLength()).isEqualTo(ConsumeAccessRequest.TOPIC_OFFSET + 2);
        assertThat(bytes[ConsumeAccessRequest.TOPIC_OFFSET + 2])
                .as("past the message: untouched")
                .isEqualTo((byte) 0x5a);
    }

    @Test
    void shouldReadWhatTheMemoryHoldsNow() {
        final MemorySegment segment = MemorySegment.ofArray(new byte[ReleaseAccessResponse.LENGTH]);
        final ReleaseAccessResponse read = new ReleaseAccessResponse().wrap(segment, 0);

        new ReleaseAccessResponse().wrapForEncode(segment, 0).errorCode(ControlErrorCodes.ACCESS_HELD);

        assertThat(read.errorCode()).isEqualTo(ControlErrorCodes.ACCESS_HELD);
        assertThat(read.segment()).isSameAs(segment);
        assertThat(read.segmentOffset()).isZero();
    }

    @Test
    void shouldRefuseRoomTooSmallForTheBlockOrTheString() {
        final MemorySegment segment = MemorySegment.ofArray(new byte[ProduceAccessRequest.TOPIC_OFFSET + 2 + 3]);

        assertThatThrownBy(() -> new ProduceAccessRequest().wrapForEncode(segment, 8))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no room for ProduceAccess request: offset=8 capacity=29 needed=34");
        final ProduceAccessRequest request = new ProduceAccessRequest().wrapForEncode(segment, 0);
        assertThatThrownBy(() -> request.topic("four"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no room for the topic of ProduceAccess request")
                .hasMessageContaining("stringLength=6 capacity=37");
        assertThat(request.topic("thr").encodedLength()).isEqualTo(segment.byteSize());
    }

    @Test
    void shouldRefuseAMessageOutsideItsBuffer() {
        assertThatThrownBy(() -> new ReleaseAccessResponse().wrap(MemorySegment.ofArray(new byte[4]), 2, 4))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ReleaseAccess response outside its buffer: offset=2 length=4 bufferLength=4");
    }
}
