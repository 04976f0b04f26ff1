package io.isthmus.client.record;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.client.testing.TestBatches;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class ReadableBatchesTest {
    private final ReadableBatches batches = new ReadableBatches();

    @Test
    void shouldFindTheEndOfTheWholeBatchesAndTheOffsetAfterThemInOneWalk() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment segment = arena.allocate(4096);
            final long first = TestBatches.write(segment, 16, 100, 3);
            final long second = TestBatches.write(segment, first, 103, 2);

            batches.scan(segment, 16, second, 101);

            assertThat(batches.isEmpty()).isFalse();
            assertThat(batches.end()).isEqualTo(second);
            assertThat(batches.nextOffset()).isEqualTo(105);
        }
    }

    @Test
    void shouldStopBeforeATruncatedLastBatchAsAFetchResponseMayCarryOne() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment segment = arena.allocate(4096);
            final long first = TestBatches.write(segment, 0, 0, 4);
            final long truncatedEnd = TestBatches.write(segment, first, 4, 4);

            batches.scan(segment, 0, truncatedEnd - 10, 0);

            assertThat(batches.end()).isEqualTo(first);
            assertThat(batches.nextOffset()).isEqualTo(4);
        }
    }

    @Test
    void shouldHandOutNothingWhenNotEvenTheFirstBatchIsWhole() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment segment = arena.allocate(4096);
            final long end = TestBatches.write(segment, 0, 50, 2);

            batches.scan(segment, 0, end - 1, 50);

            assertThat(batches.isEmpty()).isTrue();
            assertThat(batches.end()).isZero();
            assertThat(batches.nextOffset())
                    .as("the fetch offset: fetch again from there")
                    .isEqualTo(50);
        }
    }

    @Test
    void shouldStopAtBytesThatAreNoBatch() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment segment = arena.allocate(4096);
            final long first = TestBatches.write(segment, 0, 0, 1);
            segment.asSlice(first, 200).fill((byte) 0x7F);

            batches.scan(segment, 0, first + 200, 0);

            assertThat(batches.end()).isEqualTo(first);
            assertThat(batches.nextOffset()).isEqualTo(1);
        }
    }
}
