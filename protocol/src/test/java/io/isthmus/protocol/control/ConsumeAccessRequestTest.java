package io.isthmus.protocol.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ConsumeAccessRequestTest {
    @Test
    void shouldPutEveryFieldAtItsDocumentedOffsetBigEndian() {
        final byte[] bytes = new byte[40];
        Arrays.fill(bytes, (byte) 0x5a);
        final ConsumeAccessRequest request = new ConsumeAccessRequest()
                .wrapForEncode(MemorySegment.ofArray(bytes), 5)
                .partition(7)
                .offset(1L << 40)
                .topic("events");

        final ByteBuffer wire = ByteBuffer.wrap(bytes, 5, bytes.length - 5).slice();
        assertThat(request.encodedLength()).isEqualTo(ConsumeAccessRequest.TOPIC_OFFSET + 2 + 6);
        assertThat(wire.getInt(ConsumeAccessRequest.PARTITION_OFFSET)).isEqualTo(7);
        assertThat(wire.getInt(ConsumeAccessRequest.PARTITION_OFFSET + 4))
                .as("padding")
                .isZero();
        assertThat(wire.getLong(ConsumeAccessRequest.OFFSET_OFFSET)).isEqualTo(1L << 40);
        assertThat(wire.getShort(ConsumeAccessRequest.TOPIC_OFFSET)).isEqualTo((short) 6);

        final ConsumeAccessRequest read =
                new ConsumeAccessRequest().wrap(MemorySegment.ofArray(bytes), 5, request.encodedLength());
        assertThat(read.topic()).isEqualTo("events");
        assertThat(read.partition()).isEqualTo(7);
        assertThat(read.offset()).isEqualTo(1L << 40);
    }

    @Test
    void shouldRejectATruncatedBody() {
        assertThatThrownBy(() -> new ConsumeAccessRequest().wrap(MemorySegment.ofArray(new byte[16]), 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("truncated ConsumeAccess request: length=16 needed=18");
    }
}
