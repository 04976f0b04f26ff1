package io.isthmus.protocol.record;

import static io.isthmus.protocol.record.Fixtures.*;
import static io.isthmus.protocol.record.RecordBatchDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class RecordBatchTest {
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
    void shouldMatchKafkaLayoutInDescriptorConstants() {
        assertThat(List.of(
                        BASE_OFFSET_OFFSET,
                        LENGTH_OFFSET,
                        PARTITION_LEADER_EPOCH_OFFSET,
                        MAGIC_OFFSET,
                        CRC_OFFSET,
                        ATTRIBUTES_OFFSET,
                        LAST_OFFSET_DELTA_OFFSET,
                        BASE_TIMESTAMP_OFFSET,
                        MAX_TIMESTAMP_OFFSET,
                        PRODUCER_ID_OFFSET,
                        PRODUCER_EPOCH_OFFSET,
                        BASE_SEQUENCE_OFFSET,
                        RECORDS_COUNT_OFFSET,
                        RECORDS_OFFSET))
                .containsExactly(0, 8, 12, 16, 17, 21, 23, 27, 35, 43, 51, 53, 57, 61);
        assertThat(HEADER_LENGTH).isEqualTo(61);
        assertThat(LOG_OVERHEAD).isEqualTo(12);
        assertThat(CRC_START_OFFSET).isEqualTo(21);
        assertThat(MAGIC_V2).isEqualTo((byte) 2);
        assertThat(HEADER_LENGTH)
                .isEqualTo(org.apache.kafka.common.record.internal.DefaultRecordBatch.RECORD_BATCH_OVERHEAD);
    }

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void shouldKeepCrcValidWhenBaseOffsetAndLeaderEpochAreRewrittenInPlace(final CompressionType compression) {
        final MemorySegment s = build(compression, 10);
        final RecordBatch batch = new RecordBatch().wrap(s, 0);
        final long crc = batch.crc();
        batch.baseOffset(123_456_789L).partitionLeaderEpoch(42);
        assertThat(batch.crc()).isEqualTo(crc);
        assertThat(batch.isCrcValid()).isTrue();
        assertThat(batch.baseOffset()).isEqualTo(123_456_789L);
        assertThat(batch.lastOffset()).isEqualTo(123_456_798L);
        assertThat(batch.partitionLeaderEpoch()).isEqualTo(42);
        RecordBatchValidator.validate(s, 0, s.byteSize());
        final MutableRecordBatch kafka = kafkaView(s);
        assertThat(kafka.isValid()).isTrue();
        assertThat(kafka.baseOffset()).isEqualTo(123_456_789L);
        final List<Long> offsets = new ArrayList<>();
        batch.forEachRecord(r -> offsets.add(r.offset()));
        assertThat(offsets).first().isEqualTo(123_456_789L);
        assertThat(offsets).last().isEqualTo(123_456_798L);
        // Changing a covered field does break it.
        s.set(INT64, MAX_TIMESTAMP_OFFSET, 5L);
        assertThat(batch.isCrcValid()).isFalse();
        assertThat(kafka.isValid()).isFalse();
    }

    @Test
    void shouldRecomputeCrcWhenStampingLogAppendTime() {
        final MemorySegment s = build(CompressionType.NONE, 3);
        final RecordBatch batch = new RecordBatch().wrap(s, 0).logAppendTime(99_999L);
        assertThat(batch.isCrcValid()).isTrue();
        assertThat(batch.timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
        final List<Long> timestamps = new ArrayList<>();
        batch.forEachRecord(r -> timestamps.add(r.timestamp()));
        assertThat(timestamps).containsOnly(99_999L);
        final List<Long> kafkaTimestamps = new ArrayList<>();
        kafkaView(s).forEach(r -> kafkaTimestamps.add(r.timestamp()));
        assertThat(kafkaTimestamps).isEqualTo(timestamps);
    }

    @Test
    void shouldReadHeaderFieldsThroughGettersAndStaticHelpers() {
        final MemorySegment s = build(CompressionType.NONE, 4);
        final RecordBatch batch = new RecordBatch().wrap(s, 0);
        assertThat(RecordBatchDescriptor.batchSize(s, 0))
                .isEqualTo(s.byteSize())
                .isEqualTo(batch.sizeInBytes());
        assertThat(batch.length()).isEqualTo(batch.sizeInBytes() - LOG_OVERHEAD);
        assertThat(RecordBatchDescriptor.computeCrc(s, 0)).isEqualTo(batch.crc());
        assertThat(RecordBatchDescriptor.lastOffset(s, 0)).isEqualTo(3L);
        assertThat(batch.nextOffset()).isEqualTo(4L);
        assertThat(batch.nextBatchOffset()).isEqualTo(s.byteSize());
        assertThat(batch.attributes()).isZero();
        assertThat(batch.baseTimestamp()).isEqualTo(1000L);
        assertThat(batch.maxTimestamp()).isEqualTo(1003L);
        assertThat(batch.producerId()).isEqualTo(NO_PRODUCER_ID);
        assertThat(batch.lastSequence()).isEqualTo(NO_SEQUENCE);
        assertThat(batch.deleteHorizonMs()).isEqualTo(NO_TIMESTAMP);
        assertThat(batch.toString()).contains("records=4");
    }

    @Test
    void shouldLookUpCompressionAndTimestampTypesLikeKafka() {
        assertThat(CompressionType.forId(4)).isEqualTo(CompressionType.ZSTD);
        assertThat(CompressionType.forName("LZ4")).isEqualTo(CompressionType.LZ4);
        assertThatThrownBy(() -> CompressionType.forId(5)).isInstanceOf(IllegalArgumentException.class);
        assertThat(TimestampType.forId(1)).isEqualTo(TimestampType.LOG_APPEND_TIME);
        for (final CompressionType c : CompressionType.values()) {
            assertThat(org.apache.kafka.common.record.internal.CompressionType.forId(c.id()).name)
                    .isEqualTo(c.configName());
        }
    }
}
