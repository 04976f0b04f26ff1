package io.isthmus.protocol.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

class MetadataSlotDescriptorTest {
    @Test
    void shouldPackPositionAndFlagsIntoTheReadableWord() {
        final long word = MetadataSlotDescriptor.readableWord(123_456, true, false);

        assertThat(MetadataSlotDescriptor.position(word)).isEqualTo(123_456);
        assertThat(MetadataSlotDescriptor.isSealed(word)).isTrue();
        assertThat(MetadataSlotDescriptor.isRevoked(word)).isFalse();
        assertThat(MetadataSlotDescriptor.isRevoked(MetadataSlotDescriptor.readableWord(0, false, true)))
                .isTrue();
    }

    @Test
    void shouldRejectAPositionBeyond48Bits() {
        assertThatThrownBy(() -> MetadataSlotDescriptor.readableWord(1L << 48, false, false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("position=");
    }

    @Test
    void shouldPublishEveryFieldAtItsOffsetLittleEndian() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment slots = arena.allocate(2 * MetadataSlotDescriptor.LENGTH, 8);
            final long slot = MetadataSlotDescriptor.LENGTH;
            final long word = MetadataSlotDescriptor.readableWord(4096, false, false);

            MetadataSlotDescriptor.publish(slots, slot, word, 77, 513, 70, 3);

            assertThat(slots.get(ValueLayout.JAVA_LONG.withOrder(ByteOrder.LITTLE_ENDIAN), slot))
                    .isEqualTo(word);
            assertThat(MetadataSlotDescriptor.readable(slots, slot)).isEqualTo(word);
            assertThat(MetadataSlotDescriptor.highWatermark(slots, slot)).isEqualTo(77);
            assertThat(MetadataSlotDescriptor.segmentId(slots, slot)).isEqualTo(513);
            assertThat(MetadataSlotDescriptor.lastStableOffset(slots, slot)).isEqualTo(70);
            assertThat(MetadataSlotDescriptor.abortedCount(slots, slot)).isEqualTo(3);
            assertThat(slots.get(ValueLayout.JAVA_LONG.withOrder(ByteOrder.LITTLE_ENDIAN), slot + 24))
                    .isEqualTo(70);
            assertThat(slots.get(ValueLayout.JAVA_LONG.withOrder(ByteOrder.LITTLE_ENDIAN), slot + 32))
                    .isEqualTo(3);
            assertThat(slots.get(ValueLayout.JAVA_LONG.withOrder(ByteOrder.LITTLE_ENDIAN), slot + 8))
                    .isEqualTo(77);
            assertThat(slots.get(ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN), slot + 16))
                    .isEqualTo(513);
            assertThat(MetadataSlotDescriptor.readable(slots, 0))
                    .as("the neighbour slot")
                    .isZero();

            MetadataSlotDescriptor.clear(slots, slot);
            assertThat(slots.asSlice(slot, MetadataSlotDescriptor.LENGTH).toArray(ValueLayout.JAVA_BYTE))
                    .containsOnly((byte) 0);
        }
    }
}
