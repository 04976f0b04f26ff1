package io.isthmus.protocol.record;

import static io.isthmus.protocol.record.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** Byte compatibility with Kafka's own record classes, both ways, for every codec and timestamp type. */
class KafkaCompatibilityTest {
    private static final long BASE_TIMESTAMP = 1_700_000_000_000L;
    private static final long LOG_APPEND_TIME = 1_700_000_999_999L;

    static Stream<Arguments> codecsAndTimestampTypes() {
        final List<Arguments> args = new ArrayList<>();
        for (final CompressionType c : CompressionType.values()) {
            for (final TimestampType t : TimestampType.values()) {
                args.add(Arguments.of(c, t));
            }
        }
        return args.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("codecsAndTimestampTypes")
    void shouldParseKafkaWrittenBatchesIdentically(
            final CompressionType compression, final TimestampType timestampType) {
        final List<Input> inputs = randomInputs(42 + compression.ordinal(), 500, BASE_TIMESTAMP);
        final ByteBuffer kafka =
                kafkaBatch(inputs, compression, timestampType, 1000L, LOG_APPEND_TIME, 77L, (short) 3, 12, true, 9);
        final List<Rec> kafkaView = readWithKafka(kafka.duplicate());
        final MutableRecordBatch kafkaBatch = MemoryRecords.readableRecords(kafka.duplicate())
                .batches()
                .iterator()
                .next();

        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment segment = copyOffHeap(arena, kafka.duplicate());
            RecordBatchValidator.validate(segment, 0, segment.byteSize());

            final RecordBatch batch = new RecordBatch().wrap(segment, 0);
            assertThat(batch.sizeInBytes()).isEqualTo(kafkaBatch.sizeInBytes()).isEqualTo((int) segment.byteSize());
            assertThat(batch.baseOffset()).isEqualTo(kafkaBatch.baseOffset());
            assertThat(batch.lastOffset()).isEqualTo(kafkaBatch.lastOffset());
            assertThat(batch.magic()).isEqualTo(kafkaBatch.magic());
            assertThat(batch.crc()).isEqualTo(kafkaBatch.checksum()).isEqualTo(batch.computeCrc());
            assertThat(batch.isCrcValid()).isTrue();
            assertThat(batch.compression().id()).isEqualTo((int) kafkaBatch.compressionType().id);
            assertThat(batch.timestampType().displayName()).isEqualTo(kafkaBatch.timestampType().name);
            assertThat(batch.maxTimestamp()).isEqualTo(kafkaBatch.maxTimestamp());
            assertThat(batch.producerId()).isEqualTo(kafkaBatch.producerId()).isEqualTo(77L);
            assertThat(batch.producerEpoch())
                    .isEqualTo(kafkaBatch.producerEpoch())
                    .isEqualTo((short) 3);
            assertThat(batch.baseSequence())
                    .isEqualTo(kafkaBatch.baseSequence())
                    .isEqualTo(12);
            assertThat(batch.lastSequence()).isEqualTo(kafkaBatch.lastSequence());
            assertThat(batch.isTransactional())
                    .isEqualTo(kafkaBatch.isTransactional())
                    .isTrue();
            assertThat(batch.isControl()).isFalse();
            assertThat(batch.partitionLeaderEpoch())
                    .isEqualTo(kafkaBatch.partitionLeaderEpoch())
                    .isEqualTo(9);
            assertThat(batch.recordCount()).isEqualTo(kafkaBatch.countOrNull()).isEqualTo(inputs.size());

            final List<Rec> ours = readWithIsthmus(segment, 0);
            assertThat(ours).isEqualTo(kafkaView);
            assertThat(ours).isEqualTo(expected(inputs, 1000L, timestampType, LOG_APPEND_TIME));
            // Each record reports the batch's timestamp type, as Kafka's ConsumerRecord.timestampType() does.
            final String kafkaType = kafkaBatch.timestampType().name;
            batch.forEachRecord(r -> assertThat(r.timestampType().displayName()).isEqualTo(kafkaType));

            // Random header access and lastHeader agree with the sequential walk.
            final Iterator<Rec> expected = ours.iterator();
            batch.forEachRecord(r -> {
                final Rec rec = expected.next();
                for (int i = 0; i < r.headerCount(); i++) {
                    final Header h = r.header(i);
                    assertThat(h.keyAsString()).isEqualTo(rec.headers().get(i).key());
                    assertThat(hex(h.value())).isEqualTo(rec.headers().get(i).value());
                    assertThat(r.lastHeader(utf8(rec.headers().get(i).key()))).isNotNull();
                }
                assertThat(r.lastHeader(utf8("absent"))).isNull();
            });
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("codecsAndTimestampTypes")
    void shouldWriteBatchesThatKafkaReadsIdentically(
            final CompressionType compression, final TimestampType timestampType) {
        final List<Input> inputs = randomInputs(7 + compression.ordinal(), 500, BASE_TIMESTAMP);
        try (Arena arena = Arena.ofConfined();
                RecordBatchBuilder builder = new RecordBatchBuilder()) {
            final MemorySegment segment = arena.allocate(16 * 1024 * 1024, 8);
            builder.compression(compression)
                    .timestampType(timestampType)
                    .logAppendTime(LOG_APPEND_TIME)
                    .producer(77L, (short) 3, 12)
                    .transactional(true)
                    .partitionLeaderEpoch(9);
            builder.begin(segment, 0, segment.byteSize(), 1000L);
            final HeaderList headers = new HeaderList();
            boolean arrays = false;
            for (final Input in : inputs) {
                // Alternate the byte[] and MemorySegment append paths.
                if (arrays) {
                    builder.append(in.timestamp(), in.key(), in.value(), headerList(in, headers));
                } else {
                    builder.append(
                            in.timestamp(),
                            in.key() == null ? null : MemorySegment.ofArray(in.key()),
                            in.value() == null ? null : MemorySegment.ofArray(in.value()),
                            headerList(in, headers));
                }
                arrays = !arrays;
            }
            final int size = builder.finish();
            final ByteBuffer buffer = segment.asSlice(0, size).asByteBuffer();

            final MutableRecordBatch kafkaBatch = MemoryRecords.readableRecords(buffer.duplicate())
                    .batches()
                    .iterator()
                    .next();
            assertThat(kafkaBatch.isValid()).isTrue();
            kafkaBatch.ensureValid();
            assertThat(kafkaBatch.sizeInBytes()).isEqualTo(size);
            assertThat((int) kafkaBatch.compressionType().id).isEqualTo(compression.id());
            assertThat(kafkaBatch.timestampType()).isEqualTo(kafkaTimestampType(timestampType));
            assertThat(kafkaBatch.baseOffset()).isEqualTo(1000L);
            assertThat(kafkaBatch.lastOffset()).isEqualTo(1000L + inputs.size() - 1);
            assertThat(kafkaBatch.producerId()).isEqualTo(77L);
            assertThat(kafkaBatch.producerEpoch()).isEqualTo((short) 3);
            assertThat(kafkaBatch.baseSequence()).isEqualTo(12);
            assertThat(kafkaBatch.isTransactional()).isTrue();
            assertThat(kafkaBatch.partitionLeaderEpoch()).isEqualTo(9);
            assertThat(kafkaBatch.countOrNull()).isEqualTo(inputs.size());

            final List<Rec> kafkaView = readWithKafka(buffer.duplicate());
            assertThat(kafkaView).isEqualTo(expected(inputs, 1000L, timestampType, LOG_APPEND_TIME));
            assertThat(readWithIsthmus(segment, 0)).isEqualTo(kafkaView);

            // Kafka's builder, given the same input, agrees on every header field; uncompressed, on every byte.
            final ByteBuffer kafka =
                    kafkaBatch(inputs, compression, timestampType, 1000L, LOG_APPEND_TIME, 77L, (short) 3, 12, true, 9);
            final MutableRecordBatch reference = MemoryRecords.readableRecords(kafka.duplicate())
                    .batches()
                    .iterator()
                    .next();
            assertThat(kafkaBatch.maxTimestamp()).isEqualTo(reference.maxTimestamp());
            assertThat(new RecordBatch().wrap(segment, 0).baseTimestamp())
                    .isEqualTo(new RecordBatch()
                            .wrap(MemorySegment.ofBuffer(kafka), 0)
                            .baseTimestamp());
            if (compression == CompressionType.NONE) {
                assertThat(hex(segment.asSlice(0, size))).isEqualTo(hex(kafka.duplicate()));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void shouldReadBackToBackBatchesInKafkaAndIsthmus(final CompressionType compression) {
        try (Arena arena = Arena.ofConfined();
                RecordBatchBuilder builder = new RecordBatchBuilder().compression(compression)) {
            final MemorySegment segment = arena.allocate(1 << 20, 8);
            long position = 0;
            long offset = 0;
            final List<Input> all = new ArrayList<>();
            for (int b = 0; b < 5; b++) {
                final List<Input> inputs = randomInputs(100 + b, 20, BASE_TIMESTAMP).stream()
                        .map(i -> new Input(
                                i.timestamp(),
                                i.key(),
                                i.value() == null || i.value().length > 1000 ? null : i.value(),
                                i.headerKeys(),
                                i.headerValues()))
                        .toList();
                builder.begin(segment, position, segment.byteSize(), offset);
                final HeaderList headers = new HeaderList();
                for (final Input in : inputs) {
                    builder.append(in.timestamp(), in.key(), in.value(), headerList(in, headers));
                }
                position += builder.finish();
                offset += inputs.size();
                all.addAll(inputs);
            }
            assertThat(readWithKafka(segment.asSlice(0, position).asByteBuffer()))
                    .isEqualTo(expected(all, 0, TimestampType.CREATE_TIME, -1));
            assertThat(RecordBatchValidator.readableBatchEnd(segment, 0, position))
                    .isEqualTo(position);
            assertThat(RecordBatchValidator.validPrefixEnd(
                            segment, 0, position, RecordBatchValidator.Mode.PRODUCE, null))
                    .isEqualTo(position);
        }
    }

    @Test
    void shouldRecogniseKafkaControlBatch() {
        final ByteBuffer buffer = ByteBuffer.allocate(1024);
        final MemoryRecordsBuilder builder = MemoryRecords.builder(
                buffer,
                org.apache.kafka.common.record.internal.RecordBatch.MAGIC_VALUE_V2,
                Fixtures.kafkaCompression(CompressionType.NONE),
                org.apache.kafka.common.record.TimestampType.CREATE_TIME,
                50L,
                BASE_TIMESTAMP,
                5L,
                (short) 1,
                -1,
                true,
                true,
                0);
        builder.appendEndTxnMarker(BASE_TIMESTAMP, new EndTransactionMarker(ControlRecordType.COMMIT, 4));
        final ByteBuffer built = builder.build().buffer();
        final MemorySegment segment = MemorySegment.ofBuffer(built);
        RecordBatchValidator.validate(segment, 0, segment.byteSize());
        final RecordBatch batch = new RecordBatch().wrap(segment, 0);
        assertThat(batch.isControl()).isTrue();
        assertThat(batch.isTransactional()).isTrue();
        assertThat(batch.recordCount()).isEqualTo(1);
        batch.forEachRecord(r -> {
            assertThat(r.offset()).isEqualTo(50L);
            // Control record key: version int16 0, type int16 (COMMIT = 1).
            assertThat(r.keySize()).isEqualTo(4);
            assertThat(r.segment().get(RecordBatchDescriptor.INT16, r.keyOffset() + 2))
                    .isEqualTo((short) 1);
        });
        assertThat(io.isthmus.protocol.record.EndTransactionMarker.controlType(segment, 0))
                .isEqualTo(io.isthmus.protocol.record.EndTransactionMarker.COMMIT);
        assertThat(io.isthmus.protocol.record.EndTransactionMarker.coordinatorEpoch(segment, 0))
                .as("the coordinator epoch Kafka wrote into the marker's value")
                .isEqualTo(4);
    }

    @Test
    void shouldReadHeapSegmentsForEveryCodec() {
        for (final CompressionType compression : CompressionType.values()) {
            final List<Input> inputs = randomInputs(5, 50, BASE_TIMESTAMP);
            final ByteBuffer kafka =
                    kafkaBatch(inputs, compression, TimestampType.CREATE_TIME, 0L, -1, -1L, (short) -1, -1, false, -1);
            final byte[] array = new byte[kafka.remaining()];
            kafka.duplicate().get(array);
            final MemorySegment heap = MemorySegment.ofArray(array);
            assertThat(heap.isNative()).isFalse();
            RecordBatchValidator.validate(heap, 0, heap.byteSize());
            assertThat(readWithIsthmus(heap, 0)).isEqualTo(expected(inputs, 0, TimestampType.CREATE_TIME, -1));
            assertThat(heap.get(ValueLayout.JAVA_BYTE, RecordBatchDescriptor.MAGIC_OFFSET))
                    .isEqualTo((byte) 2);
        }
    }
}
