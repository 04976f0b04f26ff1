package io.isthmus.protocol.record;

import static io.isthmus.protocol.record.InvalidRecordBatchException.Reason.*;
import static io.isthmus.protocol.record.RecordBatchDescriptor.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.isthmus.protocol.record.InvalidRecordBatchException.Reason;
import io.isthmus.protocol.record.RecordBatchValidator.Mode;
import io.isthmus.protocol.record.RecordBatchValidator.Structure;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class RecordBatchValidatorTest {
    private final Arena arena = Arena.ofShared();

    @AfterEach
    void close() {
        arena.close();
    }

    /** A valid batch of {@code n} records written by our builder. */
    private MemorySegment valid(final CompressionType compression, final int n) {
        try (RecordBatchBuilder builder = new RecordBatchBuilder().compression(compression)) {
            final MemorySegment segment = arena.allocate(1 << 20, 8);
            builder.begin(segment, 0, segment.byteSize(), 100L);
            final HeaderList headers = new HeaderList().add("trace", new byte[] {1, 2, 3});
            for (int i = 0; i < n; i++) {
                builder.append(
                        5000L + i, Fixtures.utf8("key-" + i), Fixtures.utf8("value-" + i + "-abcabcabc"), headers);
            }
            final int size = builder.finish();
            return segment.asSlice(0, size);
        }
    }

    @Test
    void shouldSummariseTheHeaderItValidatedSoNoLaterStepReadsItAgain() {
        final MemorySegment segment = arena.allocate(1 << 16, 8);
        final int size;
        try (RecordBatchBuilder builder = new RecordBatchBuilder().producer(77L, (short) 3, Integer.MAX_VALUE - 1)) {
            builder.begin(segment, 16, segment.byteSize(), 100L);
            for (int i = 0; i < 4; i++) {
                builder.append(5000L + 7 * i, Fixtures.utf8("k" + i), Fixtures.utf8("v" + i), new HeaderList());
            }
            size = builder.finish();
        }
        final BatchSummary summary = new BatchSummary();

        final long validated = RecordBatchValidator.validate(segment, 16, 16 + size, Mode.PRODUCE, null, summary);

        assertThat(validated).isEqualTo(size);
        assertThat(summary.position()).isEqualTo(16);
        assertThat(summary.sizeInBytes()).isEqualTo(size);
        assertThat(summary.lastOffsetDelta()).isEqualTo(3);
        assertThat(summary.offsetCount()).isEqualTo(4);
        assertThat(summary.recordCount()).isEqualTo(4);
        assertThat(summary.maxTimestamp()).isEqualTo(5021L);
        assertThat(summary.producerId()).isEqualTo(77L);
        assertThat(summary.producerEpoch()).isEqualTo((short) 3);
        assertThat(summary.baseSequence()).isEqualTo(Integer.MAX_VALUE - 1);
        assertThat(summary.lastSequence()).isEqualTo(1); // wraps like Kafka's
        assertThat(summary.isTransactional()).isFalse();
        assertThat(summary.isControl()).isFalse();
    }

    private static InvalidRecordBatchException rejected(final ThrowingCallable call, final Reason reason) {
        final InvalidRecordBatchException[] caught = new InvalidRecordBatchException[1];
        assertThatThrownBy(call)
                .isInstanceOf(InvalidRecordBatchException.class)
                .satisfies(e -> caught[0] = (InvalidRecordBatchException) e);
        final InvalidRecordBatchException e = caught[0];
        assertThat(e.reason()).as(e.getMessage()).isEqualTo(reason);
        assertThat(e.getMessage()).startsWith(reason.name() + ": batchOffset=");
        return e;
    }

    private static InvalidRecordBatchException rejected(final MemorySegment s, final Reason reason) {
        return rejected(() -> RecordBatchValidator.validate(s, 0, s.byteSize()), reason);
    }

    @Test
    void shouldAcceptValidBatchesOfEveryCodec() {
        for (final CompressionType c : CompressionType.values()) {
            final MemorySegment s = valid(c, 50);
            assertThatCode(() -> RecordBatchValidator.validate(s, 0, s.byteSize()))
                    .doesNotThrowAnyException();
            assertThat(RecordBatchValidator.validate(s, 0, s.byteSize(), Mode.STORED, null))
                    .isEqualTo(s.byteSize());
        }
    }

    @Test
    void shouldRejectTruncatedHeader() {
        final MemorySegment s = valid(CompressionType.NONE, 3);
        final InvalidRecordBatchException e = rejected(() -> RecordBatchValidator.validate(s, 0, 40), TRUNCATED_HEADER);
        assertThat(e.expected()).isEqualTo("61 bytes");
        assertThat(e.actual()).isEqualTo("40 bytes");
        assertThat(e.getMessage()).contains("field=header expected=61 bytes actual=40 bytes");
    }

    @Test
    void shouldRejectLengthSmallerThanHeader() {
        final MemorySegment s = valid(CompressionType.NONE, 3);
        s.set(INT32, LENGTH_OFFSET, 48);
        final InvalidRecordBatchException e = rejected(s, INVALID_LENGTH);
        assertThat(e.position()).isEqualTo(LENGTH_OFFSET);
        assertThat(e.field()).isEqualTo("length");
        assertThat(e.expected()).isEqualTo(">= 49");
        assertThat(e.actual()).isEqualTo("48");
    }

    @Test
    void shouldRejectBatchPastLimit() {
        final MemorySegment s = valid(CompressionType.NONE, 3);
        final InvalidRecordBatchException e =
                rejected(() -> RecordBatchValidator.validate(s, 0, s.byteSize() - 1), BATCH_PAST_LIMIT);
        assertThat(e.actual()).isEqualTo(Long.toString(s.byteSize() - LOG_OVERHEAD));
        assertThat(e.getMessage()).contains("limit " + (s.byteSize() - 1));
    }

    @Test
    void shouldRejectWrongMagic() {
        final MemorySegment s = valid(CompressionType.NONE, 3);
        s.set(INT8, MAGIC_OFFSET, (byte) 1);
        final InvalidRecordBatchException e = rejected(s, INVALID_MAGIC);
        assertThat(e.position()).isEqualTo(MAGIC_OFFSET);
        assertThat(e.expected()).isEqualTo("2");
        assertThat(e.actual()).isEqualTo("1");
    }

    @Test
    void shouldRejectBadCrc() {
        final MemorySegment s = valid(CompressionType.NONE, 3);
        final long good = new RecordBatch().wrap(s, 0).crc();
        s.set(INT8, s.byteSize() - 5, (byte) (s.get(INT8, s.byteSize() - 5) ^ 0x40));
        final InvalidRecordBatchException e = rejected(s, CRC_MISMATCH);
        assertThat(e.actual()).isEqualTo(String.format("0x%08x", good));
        assertThat(e.expected())
                .isEqualTo(String.format("0x%08x", new RecordBatch().wrap(s, 0).computeCrc()));
        assertThat(e.field()).isEqualTo("crc");
    }

    @Test
    void shouldRejectUnknownCompression() {
        final MemorySegment s = valid(CompressionType.NONE, 3);
        s.set(INT16, ATTRIBUTES_OFFSET, (short) 5);
        updateCrc(s, 0);
        final InvalidRecordBatchException e = rejected(s, UNKNOWN_COMPRESSION);
        assertThat(e.actual()).isEqualTo("5");
        assertThatThrownBy(() -> new RecordBatch().wrap(s, 0).compression())
                .isInstanceOf(InvalidRecordBatchException.class);
        assertThatThrownBy(() -> new RecordBatch().wrap(s, 0).forEachRecord(r -> {}))
                .isInstanceOf(InvalidRecordBatchException.class);
    }

    @Test
    void shouldRejectNegativeRecordCount() {
        final MemorySegment s = valid(CompressionType.NONE, 3);
        s.set(INT32, RECORDS_COUNT_OFFSET, -1);
        updateCrc(s, 0);
        final InvalidRecordBatchException e = rejected(s, INVALID_RECORD_COUNT);
        assertThat(e.actual()).isEqualTo("-1");
        rejected(() -> RecordBatchValidator.validate(s, 0, s.byteSize(), Mode.STORED), INVALID_RECORD_COUNT);
    }

    @Test
    void shouldRejectEmptyBatchWhenProducedButNotWhenStored() {
        final MemorySegment s = RawBatch.batch(arena, 0, 0, 4, new byte[0]);
        final InvalidRecordBatchException e = rejected(s, INVALID_RECORD_COUNT);
        assertThat(e.expected()).isEqualTo("> 0");
        assertThatCode(() -> RecordBatchValidator.validate(s, 0, s.byteSize(), Mode.STORED))
                .doesNotThrowAnyException();
    }

    @Test
    void shouldRejectCountNotMatchingLastOffsetDelta() {
        final MemorySegment s = valid(CompressionType.NONE, 3);
        s.set(INT32, LAST_OFFSET_DELTA_OFFSET, 5);
        updateCrc(s, 0);
        final InvalidRecordBatchException e = rejected(s, RECORD_COUNT_MISMATCH);
        assertThat(e.expected()).isEqualTo("lastOffsetDelta + 1 = 6");
        assertThat(e.actual()).isEqualTo("3");
    }

    @Test
    void shouldAcceptCompactedBatchWithGapsOnlyWhenStored() {
        // Records at offset deltas 0 and 3 of 0..4, as compaction leaves them.
        final MemorySegment s = RawBatch.batch(arena, 0, 2, 4, concat(RawBatch.simple(0), RawBatch.simple(3)));
        assertThatCode(() -> RecordBatchValidator.validate(s, 0, s.byteSize(), Mode.STORED))
                .doesNotThrowAnyException();
        rejected(s, RECORD_COUNT_MISMATCH);
        // More records than offsets is never valid.
        final MemorySegment t = RawBatch.batch(arena, 0, 2, 0, concat(RawBatch.simple(0), RawBatch.simple(0)));
        rejected(() -> RecordBatchValidator.validate(t, 0, t.byteSize(), Mode.STORED), RECORD_COUNT_MISMATCH);
    }

    @Test
    void shouldRejectOffsetDeltaOutOfSequence() {
        final MemorySegment s = RawBatch.batch(arena, RawBatch.simple(0), RawBatch.simple(7));
        final InvalidRecordBatchException e = rejected(s, INVALID_OFFSET_DELTA);
        assertThat(e.field()).isEqualTo("record 1 offset delta");
        assertThat(e.expected()).isEqualTo("1");
        assertThat(e.actual()).isEqualTo("7");
        final MemorySegment t = RawBatch.batch(arena, 0, 2, 4, concat(RawBatch.simple(3), RawBatch.simple(3)));
        rejected(() -> RecordBatchValidator.validate(t, 0, t.byteSize(), Mode.STORED), INVALID_OFFSET_DELTA);
    }

    @Test
    void shouldRejectOverlongVarint() {
        // Key length encoded in six bytes.
        final MemorySegment s = RawBatch.batch(
                arena, new RawBatch.Rec().byte8(0).varlong(0).varint(0).raw(0x80, 0x80, 0x80, 0x80, 0x80, 0x00));
        final InvalidRecordBatchException e = rejected(s, INVALID_VARINT);
        assertThat(e.expected()).isEqualTo("at most 5 bytes");
        assertThat(e.position()).isEqualTo(HEADER_LENGTH + 1 + 3);
    }

    @Test
    void shouldRejectVarintRunningPastTheRecord() {
        // The header count varint is cut off by the end of the record.
        final MemorySegment s = RawBatch.batch(
                arena,
                new RawBatch.Rec()
                        .byte8(0)
                        .varlong(0)
                        .varint(0)
                        .varint(3)
                        .raw('a', 'b', 'c')
                        .varint(-1)
                        .raw(0x80, 0x80));
        final InvalidRecordBatchException e = rejected(s, INVALID_VARINT);
        assertThat(e.actual()).isEqualTo("no terminating byte");
    }

    @Test
    void shouldRejectRecordLongerThanTheBatch() {
        final MemorySegment s = RawBatch.batch(arena, RawBatch.simple(0).length(500));
        final InvalidRecordBatchException e = rejected(s, RECORD_OVERRUN);
        assertThat(e.field()).isEqualTo("record length");
        assertThat(e.actual()).isEqualTo("500");
    }

    @Test
    void shouldRejectKeyPastTheRecordEnd() {
        final MemorySegment s = RawBatch.batch(
                arena,
                new RawBatch.Rec()
                        .byte8(0)
                        .varlong(0)
                        .varint(0)
                        .varint(100)
                        .raw('k')
                        .varint(-1)
                        .varint(0));
        final InvalidRecordBatchException e = rejected(s, RECORD_OVERRUN);
        assertThat(e.field()).isEqualTo("key");
        assertThat(e.actual()).isEqualTo("100 bytes");
    }

    @Test
    void shouldRejectRecordLengthNotMatchingItsFields() {
        // Fields take 8 bytes; the length says 10 (two bytes of padding the parser never reaches).
        final MemorySegment s =
                RawBatch.batch(arena, RawBatch.simple(0).raw(0, 0).length(10));
        final InvalidRecordBatchException e = rejected(s, RECORD_LENGTH_MISMATCH);
        assertThat(e.expected()).isEqualTo("8");
        assertThat(e.actual()).isEqualTo("10");
        assertThat(e.position()).isEqualTo(HEADER_LENGTH);
    }

    @Test
    void shouldRejectInvalidFieldLengths() {
        final MemorySegment key = RawBatch.batch(
                arena,
                new RawBatch.Rec()
                        .byte8(0)
                        .varlong(0)
                        .varint(0)
                        .varint(-2)
                        .varint(-1)
                        .varint(0));
        assertThat(rejected(key, INVALID_FIELD_LENGTH).field()).isEqualTo("key length");
        final MemorySegment headerKey = RawBatch.batch(
                arena,
                new RawBatch.Rec()
                        .byte8(0)
                        .varlong(0)
                        .varint(0)
                        .varint(-1)
                        .varint(-1)
                        .varint(1)
                        .varint(-1)
                        .varint(-1));
        final InvalidRecordBatchException e = rejected(headerKey, INVALID_FIELD_LENGTH);
        assertThat(e.field()).isEqualTo("header key length");
        assertThat(e.expected()).contains("never null");
    }

    @Test
    void shouldRejectNegativeHeaderCount() {
        final MemorySegment s = RawBatch.batch(
                arena,
                new RawBatch.Rec()
                        .byte8(0)
                        .varlong(0)
                        .varint(0)
                        .varint(-1)
                        .varint(-1)
                        .varint(-3));
        assertThat(rejected(s, INVALID_HEADER_COUNT).actual()).isEqualTo("-3");
    }

    @Test
    void shouldRejectBytesLeftOverAfterTheRecords() {
        final byte[] records = concat(RawBatch.simple(0), RawBatch.simple(1));
        final byte[] padded = java.util.Arrays.copyOf(records, records.length + 9);
        final MemorySegment s = RawBatch.batch(arena, 0, 2, 1, padded);
        final InvalidRecordBatchException e = rejected(s, RECORDS_SIZE_MISMATCH);
        assertThat(e.actual()).isEqualTo("9 bytes left over after 2 records");
    }

    @Test
    void shouldRejectRecordsEndingBeforeTheCount() {
        final byte[] records = concat(big(0), big(1));
        final MemorySegment s = RawBatch.batch(arena, 0, 3, 2, records);
        final InvalidRecordBatchException e = rejected(s, RECORDS_SIZE_MISMATCH);
        assertThat(e.expected()).startsWith("1 more record(s)");
    }

    @Test
    void shouldRejectCountThatCannotFit() {
        final MemorySegment s =
                RawBatch.batch(arena, 0, 1000, 999, RawBatch.simple(0).encode());
        assertThat(rejected(s, RECORDS_SIZE_MISMATCH).field()).isEqualTo("records count");
    }

    @ParameterizedTest
    @EnumSource(value = CompressionType.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
    void shouldRejectCorruptCompressedData(final CompressionType compression) {
        final byte[] garbage = new byte[64];
        new Random(1).nextBytes(garbage);
        final MemorySegment s = RawBatch.batch(arena, compression.id(), 1, 0, garbage);
        final InvalidRecordBatchException e = rejected(s, CORRUPT_COMPRESSED_DATA);
        assertThat(e.field()).isEqualTo("records (" + compression.configName() + ")");

        // A valid stream cut short, CRC fixed so that only the codec can notice.
        final MemorySegment valid = valid(compression, 200);
        final MemorySegment cut = arena.allocate(valid.byteSize() - 10, 8);
        MemorySegment.copy(valid, 0, cut, 0, cut.byteSize());
        cut.set(INT32, LENGTH_OFFSET, (int) cut.byteSize() - LOG_OVERHEAD);
        updateCrc(cut, 0);
        assertThatThrownBy(() -> RecordBatchValidator.validate(cut, 0, cut.byteSize()))
                .isInstanceOfSatisfying(InvalidRecordBatchException.class, x -> assertThat(x.reason())
                        .isIn(CORRUPT_COMPRESSED_DATA, RECORDS_SIZE_MISMATCH, RECORD_OVERRUN, INVALID_VARINT));
    }

    @Test
    void shouldReportDecompressedPositionsForErrorsInsideCompressedRecords() {
        try (BatchCompressor compressor = new BatchCompressor()) {
            final byte[] records = RawBatch.simple(0).length(500).encode();
            final MemorySegment in = arena.allocate(records.length);
            MemorySegment.copy(MemorySegment.ofArray(records), 0, in, 0, records.length);
            final MemorySegment out = arena.allocate(1024);
            final long n = compressor.compress(CompressionType.ZSTD, 3, in, 0, records.length, out, 0, 1024);
            final MemorySegment s = RawBatch.batch(
                    arena, CompressionType.ZSTD.id(), 1, 0, out.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE));
            final InvalidRecordBatchException e = rejected(s, RECORD_OVERRUN);
            assertThat(e.inDecompressedRecords()).isTrue();
            assertThat(e.position()).isZero();
            assertThat(e.getMessage()).contains("position=0 (in decompressed records)");
        }
    }

    @Test
    void shouldFindEndOfLastWholeBatchWithStructuralScan() {
        final MemorySegment a = valid(CompressionType.NONE, 3);
        final MemorySegment b = valid(CompressionType.LZ4, 3);
        final MemorySegment log = arena.allocate(a.byteSize() + b.byteSize() + 100, 8);
        MemorySegment.copy(a, 0, log, 0, a.byteSize());
        MemorySegment.copy(b, 0, log, a.byteSize(), b.byteSize());
        final long whole = a.byteSize() + b.byteSize();
        // Zeroed tail: a zero length field is malformed, so scanning stops there.
        assertThat(RecordBatchValidator.readableBatchEnd(log, 0, log.byteSize()))
                .isEqualTo(whole);
        assertThat(RecordBatchValidator.structure(log, whole, log.byteSize())).isEqualTo(Structure.MALFORMED);
        // The second batch only partly there.
        assertThat(RecordBatchValidator.readableBatchEnd(log, 0, whole - 1)).isEqualTo(a.byteSize());
        assertThat(RecordBatchValidator.structure(log, a.byteSize(), whole - 1)).isEqualTo(Structure.INCOMPLETE);
        assertThat(RecordBatchValidator.structure(log, a.byteSize(), a.byteSize() + 10))
                .isEqualTo(Structure.INCOMPLETE);
        assertThat(RecordBatchValidator.isStructurallyComplete(log, a.byteSize(), whole))
                .isTrue();
        // A corrupt second batch: structurally fine, but the valid prefix ends before it.
        log.set(INT8, whole - 3, (byte) (log.get(INT8, whole - 3) ^ 1));
        assertThat(RecordBatchValidator.readableBatchEnd(log, 0, log.byteSize()))
                .isEqualTo(whole);
        assertThat(RecordBatchValidator.validPrefixEnd(log, 0, log.byteSize(), Mode.PRODUCE, null))
                .isEqualTo(a.byteSize());
    }

    /**
     * Flips random bytes of valid batches: the validator either accepts (only possible when every flipped byte lies
     * outside the CRC and outside length/magic) or throws InvalidRecordBatchException, never anything else. Half
     * the rounds fix the CRC afterwards, so that the record parser and the codecs see the damage too.
     */
    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void shouldFailFuzzedBatchesOnlyWithInvalidRecordBatchException(final CompressionType compression) {
        final MemorySegment original = valid(compression, 40);
        final long size = original.byteSize();
        final MemorySegment copy = arena.allocate(size, 8);
        final Random random = new Random(compression.ordinal() * 31L + 7);
        final Map<Reason, Integer> reasons = new EnumMap<>(Reason.class);
        int accepted = 0;
        try (BatchDecompressor decompressor = new BatchDecompressor(256, 1 << 24)) {
            for (int round = 0; round < 3000; round++) {
                MemorySegment.copy(original, 0, copy, 0, size);
                final int flips = 1 + random.nextInt(3);
                final long[] positions = new long[flips];
                for (int f = 0; f < flips; f++) {
                    // Bias towards the header and the start of the records.
                    positions[f] = random.nextBoolean() ? random.nextInt(80) : random.nextLong(size);
                    final int x = 1 + random.nextInt(255);
                    copy.set(INT8, positions[f], (byte) (copy.get(INT8, positions[f]) ^ x));
                }
                final boolean fixCrc = random.nextBoolean();
                if (fixCrc && RecordBatchValidator.structure(copy, 0, size) == Structure.COMPLETE) {
                    updateCrc(copy, 0);
                }
                final long limit = random.nextInt(10) == 0 ? random.nextLong(size + 1) : size;
                for (final Mode mode : Mode.values()) {
                    try {
                        RecordBatchValidator.validate(copy, 0, limit, mode, decompressor);
                        accepted++;
                        if (!fixCrc) {
                            for (final long p : positions) {
                                assertThat(p < LENGTH_OFFSET
                                                || (p >= PARTITION_LEADER_EPOCH_OFFSET && p < MAGIC_OFFSET))
                                        .as("accepted a flip at %d outside the fields the CRC skips", p)
                                        .isTrue();
                            }
                        }
                        // An accepted batch iterates cleanly.
                        new RecordBatch().wrap(copy, 0).forEachRecord(r -> r.forEachHeader(h -> {}), decompressor);
                    } catch (final InvalidRecordBatchException e) {
                        reasons.merge(e.reason(), 1, Integer::sum);
                    } catch (final Throwable t) {
                        fail("round " + round + " flips " + java.util.Arrays.toString(positions) + " threw " + t, t);
                    }
                }
                // The cheap scanners never throw at all.
                RecordBatchValidator.readableBatchEnd(copy, 0, limit);
                RecordBatchValidator.structure(copy, 0, limit);
            }
        }
        assertThat(reasons).containsKeys(CRC_MISMATCH);
        assertThat(reasons.size()).as("reasons seen: %s", reasons).isGreaterThanOrEqualTo(4);
        assertThat(accepted).isGreaterThan(0);
    }

    /** A record with a 30-byte value. */
    private static RawBatch.Rec big(final int offsetDelta) {
        return new RawBatch.Rec()
                .byte8(0)
                .varlong(0)
                .varint(offsetDelta)
                .varint(-1)
                .varint(30)
                .bytes(new byte[30])
                .varint(0);
    }

    private static byte[] concat(final RawBatch.Rec... records) {
        final java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (final RawBatch.Rec r : records) {
            final byte[] b = r.encode();
            out.write(b, 0, b.length);
        }
        return out.toByteArray();
    }

    @Test
    void shouldCarryAllDetailsInMessage() {
        final InvalidRecordBatchException e =
                new InvalidRecordBatchException(CRC_MISMATCH, 128, 145, "crc", "0x00000001", "0x00000002");
        assertThat(e.getMessage())
                .isEqualTo(
                        "CRC_MISMATCH: batchOffset=128 position=145 field=crc expected=0x00000001 actual=0x00000002");
        assertThat(List.of(e.batchOffset(), e.position())).containsExactly(128L, 145L);
    }
}
