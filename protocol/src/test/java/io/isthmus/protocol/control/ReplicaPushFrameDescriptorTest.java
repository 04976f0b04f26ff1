package io.isthmus.protocol.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

class ReplicaPushFrameDescriptorTest {
    @Test
    void shouldPutTheBatchesLengthLittleEndianBeforeTheBatches() {
        final byte[] bytes = new byte[ReplicaPushFrameDescriptor.HEADER_LENGTH + 5];
        final MemorySegment slot = MemorySegment.ofArray(bytes);
        bytes[ReplicaPushFrameDescriptor.HEADER_LENGTH] = 42;

        ReplicaPushFrameDescriptor.writeHeader(slot, 0, 5);

        final ByteBuffer le = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(le.getInt(ReplicaPushFrameDescriptor.LENGTH_OFFSET)).isEqualTo(5);
        assertThat(le.getInt(4)).as("reserved").isZero();
        assertThat(ReplicaPushFrameDescriptor.batchesLength(slot, 0)).isEqualTo(5);
        final MemorySegment batches = ReplicaPushFrameDescriptor.batches(slot, 0, 5);
        assertThat(batches.byteSize()).isEqualTo(5);
        assertThat(batches.get(ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 42);
    }
}
