package io.isthmus.protocol.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

class AbortedTransactionsDescriptorTest {
    @Test
    void shouldWriteEachEntryAtItsPositionLittleEndianAndReadItBackUnaligned() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment array = arena.allocate(3 * AbortedTransactionsDescriptor.ENTRY_LENGTH + 1, 8);
            AbortedTransactionsDescriptor.write(array, 1, 4242, 10, 20);

            final ValueLayout.OfLong le = ValueLayout.JAVA_LONG.withOrder(ByteOrder.LITTLE_ENDIAN);
            assertThat(array.get(le, 24)).isEqualTo(4242);
            assertThat(array.get(le, 32)).isEqualTo(10);
            assertThat(array.get(le, 40)).isEqualTo(20);
            assertThat(array.get(le, 0)).as("entry 0 untouched").isZero();

            // A consumer's READ buffer need not be aligned.
            final MemorySegment copy = arena.allocate(3 * AbortedTransactionsDescriptor.ENTRY_LENGTH + 1)
                    .asSlice(1);
            MemorySegment.copy(array, 0, copy, 0, 3 * AbortedTransactionsDescriptor.ENTRY_LENGTH);
            assertThat(AbortedTransactionsDescriptor.producerId(copy, 1)).isEqualTo(4242);
            assertThat(AbortedTransactionsDescriptor.firstOffset(copy, 1)).isEqualTo(10);
            assertThat(AbortedTransactionsDescriptor.lastOffset(copy, 1)).isEqualTo(20);
        }
    }
}
