package io.isthmus.protocol.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

class ProduceAckDescriptorTest {
    @Test
    void shouldWriteALittleEndianSixteenByteAck() {
        final byte[] bytes = new byte[ProduceAckDescriptor.LENGTH + 3];
        final MemorySegment segment = MemorySegment.ofArray(bytes);

        ProduceAckDescriptor.write(segment, 3, 123_456_789_000L, 0xCAFE0001, ControlErrorCodes.CORRUPT_MESSAGE);

        final ByteBuffer le = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(le.getLong(3)).isEqualTo(123_456_789_000L);
        assertThat(le.getInt(3 + ProduceAckDescriptor.IMMEDIATE_OFFSET)).isEqualTo(0xCAFE0001);
        assertThat(ProduceAckDescriptor.baseOffset(segment, 3)).isEqualTo(123_456_789_000L);
        assertThat(ProduceAckDescriptor.immediate(segment, 3)).isEqualTo(0xCAFE0001);
        assertThat(ProduceAckDescriptor.errorCode(segment, 3)).isEqualTo(ControlErrorCodes.CORRUPT_MESSAGE);
    }
}
