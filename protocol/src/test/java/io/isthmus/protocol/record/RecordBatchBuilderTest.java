package io.isthmus.protocol.record;

import static io.isthmus.protocol.record.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RecordBatchBuilderTest {
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

    @Test
    void shouldWriteClaimedValueInPlace() {
        final MemorySegment s = arena.allocate(4096, 8);
        try (RecordBatchBuilder builder = new RecordBatchBuilder()) {
            builder.begin(s, 0, s.byteSize(), 7L, 500L);
            final long at = builder.claimValue(510L, MemorySegment.ofArray(utf8("key")), 5, null);
            MemorySegment.copy(utf8("hello"), 0, builder.buffer(), ValueLayout.JAVA_BYTE, at, 5);
            final MemorySegment slice = builder.claimValueSlice(520L, null, 3, new HeaderList().add("h", null));
            slice.copyFrom(MemorySegment.ofArray(utf8("abc")));
            final int size = builder.finish();
            assertThat(readWithKafka(s.asSlice(0, size).asByteBuffer()))
                    .containsExactly(
                            new Rec(7L, 510L, hex(utf8("key")), hex(utf8("hello")), List.of()),
                            new Rec(8L, 520L, null, hex(utf8("abc")), List.of(new Hdr("h", null))));
        }
    }

    @Test
    void shouldRefuseRecordsThatDoNotFitAndEmptyBatches() {
        final MemorySegment s = arena.allocate(200, 8);
        try (RecordBatchBuilder builder = new RecordBatchBuilder()) {
            builder.begin(s, 0, s.byteSize(), 0L);
            assertThatThrownBy(builder::finish).isInstanceOf(IllegalStateException.class);
            assertThat(builder.hasRoomFor(0L, 10, 100, null)).isTrue();
            builder.append(0L, new byte[10], new byte[100]);
            assertThat(builder.hasRoomFor(0L, 10, 100, null)).isFalse();
            assertThatThrownBy(() -> builder.append(0L, new byte[10], new byte[100]))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("does not fit");
            final int size = builder.finish();
            RecordBatchValidator.validate(s, 0, size);
            assertThatThrownBy(() -> builder.append(0L, (byte[]) null, null)).isInstanceOf(IllegalStateException.class);
        }
        // Compressed output that does not fit the target.
        final MemorySegment small = arena.allocate(100, 8);
        try (RecordBatchBuilder builder = new RecordBatchBuilder().compression(CompressionType.GZIP)) {
            builder.begin(small, 0, small.byteSize(), 0L);
            final java.util.Random random = new java.util.Random(1);
            for (int i = 0; i < 20; i++) {
                builder.append(0L, null, Fixtures.bytes(random, 50));
            }
            assertThatThrownBy(builder::finish).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void shouldRoundTripControlAndDeleteHorizonFlagsThroughKafka() {
        final MemorySegment s = arena.allocate(1024, 8);
        try (RecordBatchBuilder builder = new RecordBatchBuilder()
                .transactional(true)
                .control(true)
                .producer(9L, (short) 2, -1)
                .deleteHorizonMs(5_000L)) {
            builder.begin(s, 0, s.byteSize(), 0L);
            builder.append(6_000L, new byte[] {0, 0, 0, 1}, new byte[] {0, 0, 0, 0, 0, 3});
            final int size = builder.finish();
            final MutableRecordBatch kafka = kafkaView(s.asSlice(0, size));
            assertThat(kafka.isValid()).isTrue();
            assertThat(kafka.isControlBatch()).isTrue();
            assertThat(kafka.isTransactional()).isTrue();
            assertThat(kafka.deleteHorizonMs()).hasValue(5_000L);
            final RecordBatch batch = new RecordBatch().wrap(s, 0);
            assertThat(batch.isControl()).isTrue();
            assertThat(batch.hasDeleteHorizon()).isTrue();
            assertThat(batch.deleteHorizonMs()).isEqualTo(5_000L);
            batch.forEachRecord(r -> assertThat(r.timestamp()).isEqualTo(6_000L));
        }
    }
}
