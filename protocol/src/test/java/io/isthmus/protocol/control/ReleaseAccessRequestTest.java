package io.isthmus.protocol.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class ReleaseAccessRequestTest {
    @Test
    void shouldPutEveryFieldAtItsDocumentedOffsetBigEndian() {
        final byte[] bytes = new byte[16];
        final ReleaseAccessRequest request = new ReleaseAccessRequest()
                .wrapForEncode(MemorySegment.ofArray(bytes), 3)
                .partition(1)
                .access(ReleaseAccessRequest.PRODUCE)
                .topic("t");

        final ByteBuffer wire = ByteBuffer.wrap(bytes, 3, bytes.length - 3).slice();
        assertThat(request.encodedLength()).isEqualTo(ReleaseAccessRequest.TOPIC_OFFSET + 2 + 1);
        assertThat(wire.getInt(ReleaseAccessRequest.PARTITION_OFFSET)).isEqualTo(1);
        assertThat(wire.getInt(ReleaseAccessRequest.ACCESS_OFFSET)).isEqualTo(ReleaseAccessRequest.PRODUCE);
        assertThat(wire.getShort(ReleaseAccessRequest.TOPIC_OFFSET)).isEqualTo((short) 1);
        assertThat(wire.get(ReleaseAccessRequest.TOPIC_OFFSET + 2)).isEqualTo((byte) 't');

        final ReleaseAccessRequest read = new ReleaseAccessRequest().wrap(MemorySegment.ofArray(bytes), 3);
        assertThat(read.topic()).isEqualTo("t");
        assertThat(read.partition()).isEqualTo(1);
        assertThat(read.access()).isEqualTo(ReleaseAccessRequest.PRODUCE);
    }

    @Test
    void shouldRejectATopicRunningPastTheMessage() {
        final MemorySegment segment = MemorySegment.ofArray(new byte[] {0, 0, 0, 1, 0, 0, 0, 2, 0, 5, 't'});

        assertThatThrownBy(() -> new ReleaseAccessRequest().wrap(segment, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("truncated ReleaseAccess request: topic runs past the message")
                .hasMessageContaining("stringLength=5 length=11");
    }
}
