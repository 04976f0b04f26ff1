package io.isthmus.client.producer;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

class Murmur2Test {
    @Test
    void shouldHashExactlyAsKafkaForEveryTailLength() {
        final Random random = new Random(42);
        for (int length = 0; length < 300; length++) {
            final byte[] key = new byte[length];
            random.nextBytes(key);
            assertThat(Murmur2.hash(key)).as("length %d", length).isEqualTo(Utils.murmur2(key));
        }
    }

    @Test
    void shouldHashOffHeapSegmentsLikeArrays() {
        final Random random = new Random(7);
        try (Arena arena = Arena.ofConfined()) {
            for (int length = 1; length < 64; length++) {
                final byte[] key = new byte[length];
                random.nextBytes(key);
                final MemorySegment segment = arena.allocate(length);
                MemorySegment.copy(key, 0, segment, ValueLayout.JAVA_BYTE, 0, length);
                assertThat(Murmur2.hash(segment)).isEqualTo(Utils.murmur2(key));
            }
        }
    }

    @Test
    void shouldPlaceKeysWhereKafkasDefaultPartitionerDoes() {
        for (int i = 0; i < 10_000; i++) {
            final byte[] key = ("user-" + i).getBytes(StandardCharsets.UTF_8);
            for (final int partitions : new int[] {1, 3, 7, 12, 100}) {
                assertThat(Murmur2.partitionForKey(key, partitions))
                        .isEqualTo(Utils.toPositive(Utils.murmur2(key)) % partitions);
            }
        }
    }

    @Test
    void shouldKeepTheSignBitClearWhereMathAbsWouldOverflow() {
        assertThat(Murmur2.toPositive(Integer.MIN_VALUE)).isZero();
        assertThat(Murmur2.toPositive(-1)).isEqualTo(Integer.MAX_VALUE);
    }
}
