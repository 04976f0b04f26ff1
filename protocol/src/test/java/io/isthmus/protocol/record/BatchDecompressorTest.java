package io.isthmus.protocol.record;

import static io.isthmus.protocol.record.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class BatchDecompressorTest {
    private final Arena arena = Arena.ofShared();

    @AfterEach
    void close() {
        arena.close();
    }

    private MemorySegment build(final CompressionType compression, final int records) {
        try (RecordBatchBuilder builder = new RecordBatchBuilder().compression(compression)) {
            final MemorySegment segment = arena.allocate(1 << 20, 8);
            builder.begin(segment, 0, segment.byteSize(), 0L);
            for (int i = 0; i < records; i++) {
                builder.append(1000L + i, utf8("k" + i), utf8("v" + i));
            }
            return segment.asSlice(0, builder.finish());
        }
    }

    private static MutableRecordBatch kafkaView(final MemorySegment segment) {
        return MemoryRecords.readableRecords(segment.asByteBuffer())
                .batches()
                .iterator()
                .next();
    }

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void shouldGrowDecompressionBufferFromTiny(final CompressionType compression) {
        final List<Input> inputs = randomInputs(9, 300, 1_000_000L);
        final ByteBuffer kafka =
                kafkaBatch(inputs, compression, TimestampType.CREATE_TIME, 0L, -1, -1L, (short) -1, -1, false, -1);
        final MemorySegment s = copyOffHeap(arena, kafka);
        try (BatchDecompressor decompressor = new BatchDecompressor(16, 1 << 26)) {
            final List<Long> offsets = new ArrayList<>();
            final int n = new RecordBatch().wrap(s, 0).forEachRecord(r -> offsets.add(r.offset()), decompressor);
            assertThat(n).isEqualTo(300);
            assertThat(offsets).hasSize(300);
            if (compression != CompressionType.NONE) {
                assertThat(decompressor.capacity()).isGreaterThan(16);
            }
            // The decompressor is reusable for the next batch.
            new RecordBatch().wrap(s, 0).forEachRecord(r -> {}, decompressor);
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = CompressionType.class,
            names = {"NONE"},
            mode = EnumSource.Mode.EXCLUDE)
    void shouldRejectOutputBeyondDecompressionLimitWithoutGrowingPastIt(final CompressionType compression) {
        final MemorySegment s = build(compression, 2000);
        try (BatchDecompressor decompressor = new BatchDecompressor(64, 1024)) {
            assertThatThrownBy(() -> new RecordBatch().wrap(s, 0).forEachRecord(r -> {}, decompressor))
                    .isInstanceOfSatisfying(InvalidRecordBatchException.class, e -> assertThat(e.reason())
                            .isEqualTo(InvalidRecordBatchException.Reason.DECOMPRESSED_TOO_LARGE));
            assertThat(decompressor.capacity()).isLessThanOrEqualTo(1024);
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = CompressionType.class,
            names = {"NONE"},
            mode = EnumSource.Mode.EXCLUDE)
    void aDecompressionBombCostsAtMostTheLimit(final CompressionType compression) {
        // 4 MiB of zeros compresses to a few KiB: the records section would decompress to 4 MiB.
        final MemorySegment bomb;
        try (RecordBatchBuilder builder = new RecordBatchBuilder().compression(compression)) {
            final MemorySegment segment = arena.allocate(8 << 20, 8);
            builder.begin(segment, 0, segment.byteSize(), 0L);
            builder.append(1000L, (byte[]) null, new byte[4 << 20]);
            bomb = segment.asSlice(0, builder.finish());
        }
        assertThat(bomb.byteSize()).isLessThan(1 << 20);
        try (BatchDecompressor decompressor = new BatchDecompressor(4096, 256 * 1024)) {
            assertThatThrownBy(() -> new RecordBatch().wrap(bomb, 0).forEachRecord(r -> {}, decompressor))
                    .isInstanceOfSatisfying(InvalidRecordBatchException.class, e -> assertThat(e.reason())
                            .isEqualTo(InvalidRecordBatchException.Reason.DECOMPRESSED_TOO_LARGE));
            assertThat(decompressor.capacity()).isLessThanOrEqualTo(256 * 1024);
        }
    }

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void releaseGivesAGrownBufferBackAndTheDecompressorStaysUsable(final CompressionType compression) {
        final MemorySegment large = build(compression, 20_000);
        final MemorySegment small = build(compression, 3);
        try (BatchDecompressor decompressor = new BatchDecompressor(4096, 1 << 26)) {
            assertThat(new RecordBatch().wrap(large, 0).forEachRecord(r -> {}, decompressor))
                    .isEqualTo(20_000);
            if (compression != CompressionType.NONE) {
                assertThat(decompressor.capacity()).isGreaterThan(4096);
            }
            decompressor.release();
            assertThat(decompressor.capacity()).isEqualTo(4096);
            assertThat(new RecordBatch().wrap(small, 0).forEachRecord(r -> {}, decompressor))
                    .isEqualTo(3);
            assertThat(new RecordBatch().wrap(large, 0).forEachRecord(r -> {}, decompressor))
                    .isEqualTo(20_000);
        }
    }

    @Test
    void shouldFailSlicesIntoGrownBufferInsteadOfReadingFreedMemory() {
        final MemorySegment small = build(CompressionType.LZ4, 2);
        final MemorySegment large = build(CompressionType.LZ4, 20_000);
        try (BatchDecompressor decompressor = new BatchDecompressor(64, 1 << 26)) {
            final MemorySegment[] kept = new MemorySegment[1];
            new RecordBatch().wrap(small, 0).forEachRecord(r -> kept[0] = r.value(), decompressor);
            assertThat(kept[0].get(ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 'v');
            new RecordBatch().wrap(large, 0).forEachRecord(r -> {}, decompressor);
            assertThatThrownBy(() -> kept[0].get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
        }
    }
}
