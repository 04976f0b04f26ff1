package io.isthmus.protocol.record;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Random;
import org.apache.kafka.common.utils.internals.Crc32C;
import org.junit.jupiter.api.Test;

class Crc32cTest {
    @Test
    void shouldMatchKafkaCrc32cOnHeapAndOffHeapSegments() {
        final Random random = new Random(11);
        try (Arena arena = Arena.ofConfined()) {
            for (int size : new int[] {0, 1, 7, 61, 1000, 65_537}) {
                final byte[] bytes = Fixtures.bytes(random, size + 10);
                final MemorySegment offHeap = arena.allocate(bytes.length);
                offHeap.copyFrom(MemorySegment.ofArray(bytes));
                final long kafka = Crc32C.compute(bytes, 5, size);
                assertThat(Crc32c.compute(offHeap, 5, size)).isEqualTo(kafka);
                assertThat(Crc32c.compute(MemorySegment.ofArray(bytes), 5, size))
                        .isEqualTo(kafka);
                assertThat(Crc32c.compute(bytes, 5, size)).isEqualTo(kafka);
            }
        }
    }
}
