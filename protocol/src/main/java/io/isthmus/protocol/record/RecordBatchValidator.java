package io.isthmus.protocol.record;

import static io.isthmus.protocol.record.InvalidRecordBatchException.Reason.*;
import static io.isthmus.protocol.record.RecordBatchDescriptor.*;

import java.lang.foreign.MemorySegment;

/**
 * Checks record batches from untrusted sources (produce requests, RDMA writes, log recovery, fetched data).
 *
 * <p>{@link #validate(MemorySegment, long, long)} does a full check and throws {@link InvalidRecordBatchException}
 * (and nothing else, whatever the bytes) with the reason, position, field and expected/actual values:
 *
 * <ol>
 *   <li>header: at least {@link RecordBatchDescriptor#HEADER_LENGTH} bytes ({@code TRUNCATED_HEADER}); length field
 *       at least an empty batch ({@code INVALID_LENGTH}); batch within the limit ({@code BATCH_PAST_LIMIT}); magic 2
 *       ({@code INVALID_MAGIC}); CRC-32C over attributes..end ({@code CRC_MISMATCH}); known codec ({@code
 *       UNKNOWN_COMPRESSION}); record count not negative ({@code INVALID_RECORD_COUNT});
 *   <li>count against last offset delta ({@code RECORD_COUNT_MISMATCH}), see {@link Mode};
 *   <li>every record, decompressing first if needed ({@code CORRUPT_COMPRESSED_DATA}): varints well-formed and in
 *       bounds ({@code INVALID_VARINT}), record and field lengths inside the record ({@code RECORD_OVERRUN}, {@code
 *       INVALID_FIELD_LENGTH}, {@code INVALID_HEADER_COUNT}), fields adding up to the record length ({@code
 *       RECORD_LENGTH_MISMATCH}), offset deltas ({@code INVALID_OFFSET_DELTA});
 *   <li>the records filling the (decompressed) records section exactly ({@code RECORDS_SIZE_MISMATCH}).
 * </ol>
 *
 * <p>The cheap helpers {@link #structure}, {@link #isStructurallyComplete} and {@link #readableBatchEnd} look only at
 * the length and magic fields, for scanners that need to know where the last whole batch ends (an RDMA consumer
 * holding a partial trailing batch, log recovery before it checks CRCs). {@link #validPrefixEnd} runs the full
 * check batch after batch and returns where the valid prefix ends: the truncation point for recovery.
 */
public final class RecordBatchValidator {
    /** How strictly records relate to the header. */
    public enum Mode {
        /**
         * A batch as a producer sends it: at least one record, record count == last offset delta + 1, and record
         * {@code i} has offset delta {@code i}. The default of {@link #validate(MemorySegment, long, long)}.
         */
        PRODUCE,
        /**
         * A batch as it may sit in a log after compaction: records may be missing, so the count may be smaller than
         * last offset delta + 1 (and zero), offset deltas must increase strictly and stay within 0..last offset
         * delta.
         */
        STORED
    }

    /** Answer of {@link #structure}: may a scanner step over the batch at an offset? */
    public enum Structure {
        /** Length and magic are plausible and the whole batch lies below the limit. */
        COMPLETE,
        /** Nothing says it is bad, but its bytes are not all there yet (fewer than the header, or past the limit). */
        INCOMPLETE,
        /** The length field or the magic byte cannot be right: no batch starts here. */
        MALFORMED
    }

    private RecordBatchValidator() {}

    /**
     * Fully validates the batch at {@code offset}, reading nothing at or past {@code limit}, in {@link Mode#PRODUCE}
     * mode. A compressed batch is decompressed into a temporary decompressor.
     *
     * @throws InvalidRecordBatchException with the reason if the batch is invalid
     */
    public static void validate(final MemorySegment segment, final long offset, final long limit) {
        validate(segment, offset, limit, Mode.PRODUCE);
    }

    /** As {@link #validate(MemorySegment, long, long)} with an explicit mode. */
    public static void validate(final MemorySegment segment, final long offset, final long limit, final Mode mode) {
        final long end = validateHeader(segment, offset, limit, mode);
        if (compressionOf(segment, offset) == CompressionType.NONE) {
            validateRecords(segment, offset, end, mode, null);
        } else {
            try (BatchDecompressor decompressor = new BatchDecompressor()) {
                validateRecords(segment, offset, end, mode, decompressor);
            }
        }
    }

    /**
     * Fully validates the batch at {@code offset}, decompressing into {@code decompressor} (which may be null for
     * uncompressed batches; a temporary one is used if a compressed batch meets a null).
     *
     * @return the batch size in bytes
     */
    public static long validate(
            final MemorySegment segment,
            final long offset,
            final long limit,
            final Mode mode,
            final BatchDecompressor decompressor) {
        return validate(segment, offset, limit, mode, decompressor, null);
    }

    /**
     * As {@link #validate(MemorySegment, long, long, Mode, BatchDecompressor)}, leaving what the header says in {@code
     * summary} (when not null) so that no later step needs to read it again.
     *
     * @return the batch size in bytes
     */
    public static long validate(
            final MemorySegment segment,
            final long offset,
            final long limit,
            final Mode mode,
            final BatchDecompressor decompressor,
            final BatchSummary summary) {
        final long end = validateHeader(segment, offset, limit, mode, summary);
        if (decompressor == null && compressionOf(segment, offset) != CompressionType.NONE) {
            try (BatchDecompressor temporary = new BatchDecompressor()) {
                validateRecords(segment, offset, end, mode, temporary);
            }
        } else {
            validateRecords(segment, offset, end, mode, decompressor);
        }
        return end - offset;
    }

    private static CompressionType compressionOf(final MemorySegment segment, final long offset) {
        return CompressionType.forId(segment.get(INT16, offset + ATTRIBUTES_OFFSET) & COMPRESSION_CODEC_MASK);
    }

    /**
     * Checks the header, the CRC and the count fields without reading records.
     *
     * @return the end of the batch (offset + size)
     */
    public static long validateHeader(
            final MemorySegment segment, final long offset, final long limit, final Mode mode) {
        return validateHeader(segment, offset, limit, mode, null);
    }

    private static long validateHeader(
            final MemorySegment segment,
            final long offset,
            final long limit,
            final Mode mode,
            final BatchSummary summary) {
        final long end = Math.min(limit, segment.byteSize());
        if (offset < 0 || end - offset < HEADER_LENGTH) {
            throw new InvalidRecordBatchException(
                    TRUNCATED_HEADER,
                    offset,
                    offset,
                    "header",
                    HEADER_LENGTH + " bytes",
                    Math.max(0, end - offset) + " bytes");
        }
        final int length = segment.get(INT32, offset + LENGTH_OFFSET);
        if (length < MIN_LENGTH) {
            throw new InvalidRecordBatchException(
                    INVALID_LENGTH,
                    offset,
                    offset + LENGTH_OFFSET,
                    "length",
                    ">= " + MIN_LENGTH,
                    Integer.toString(length));
        }
        final long batchEnd = offset + LOG_OVERHEAD + (long) length;
        if (batchEnd > end) {
            throw new InvalidRecordBatchException(
                    BATCH_PAST_LIMIT,
                    offset,
                    offset + LENGTH_OFFSET,
                    "length",
                    "<= " + (end - offset - LOG_OVERHEAD) + " (limit " + end + ")",
                    Integer.toString(length));
        }
        final byte magic = segment.get(INT8, offset + MAGIC_OFFSET);
        if (magic != MAGIC_V2) {
            throw new InvalidRecordBatchException(
                    INVALID_MAGIC,
                    offset,
                    offset + MAGIC_OFFSET,
                    "magic",
                    Byte.toString(MAGIC_V2),
                    Byte.toString(magic));
        }
        final long stored = Integer.toUnsignedLong(segment.get(INT32, offset + CRC_OFFSET));
        final long computed = Crc32c.compute(segment, offset + CRC_START_OFFSET, batchEnd - offset - CRC_START_OFFSET);
        if (stored != computed) {
            throw new InvalidRecordBatchException(
                    CRC_MISMATCH, offset, offset + CRC_OFFSET, "crc", hex(computed), hex(stored));
        }
        final int attributes = segment.get(INT16, offset + ATTRIBUTES_OFFSET);
        final int codec = attributes & COMPRESSION_CODEC_MASK;
        if (!CompressionType.isKnown(codec)) {
            throw new InvalidRecordBatchException(
                    UNKNOWN_COMPRESSION,
                    offset,
                    offset + ATTRIBUTES_OFFSET,
                    "attributes.compression",
                    "0..4",
                    Integer.toString(codec));
        }
        final int count = segment.get(INT32, offset + RECORDS_COUNT_OFFSET);
        final int lastOffsetDelta = segment.get(INT32, offset + LAST_OFFSET_DELTA_OFFSET);
        if (count < 0 || (mode == Mode.PRODUCE && count == 0)) {
            throw new InvalidRecordBatchException(
                    INVALID_RECORD_COUNT,
                    offset,
                    offset + RECORDS_COUNT_OFFSET,
                    "records count",
                    mode == Mode.PRODUCE ? "> 0" : ">= 0",
                    Integer.toString(count));
        }
        if (mode == Mode.PRODUCE) {
            if ((long) lastOffsetDelta + 1 != count) {
                throw new InvalidRecordBatchException(
                        RECORD_COUNT_MISMATCH,
                        offset,
                        offset + RECORDS_COUNT_OFFSET,
                        "records count",
                        "lastOffsetDelta + 1 = " + ((long) lastOffsetDelta + 1),
                        Integer.toString(count));
            }
        } else if (count > 0 && (lastOffsetDelta < 0 || count > (long) lastOffsetDelta + 1)) {
            throw new InvalidRecordBatchException(
                    RECORD_COUNT_MISMATCH,
                    offset,
                    offset + RECORDS_COUNT_OFFSET,
                    "records count",
                    "<= lastOffsetDelta + 1 = " + ((long) lastOffsetDelta + 1),
                    Integer.toString(count));
        }
        if (count > 0 && codec == 0 && count > (length - MIN_LENGTH) / 7L) {
            // Each record takes at least 7 bytes (length, attributes, 5 one-byte varints): fail fast.
            throw new InvalidRecordBatchException(
                    RECORDS_SIZE_MISMATCH,
                    offset,
                    offset + RECORDS_COUNT_OFFSET,
                    "records count",
                    "<= " + ((length - MIN_LENGTH) / 7L) + " records in " + (length - MIN_LENGTH) + " bytes",
                    Integer.toString(count));
        }
        if (summary != null) {
            summary.fill(
                    offset,
                    batchEnd - offset,
                    (short) attributes,
                    lastOffsetDelta,
                    count,
                    segment.get(INT64, offset + MAX_TIMESTAMP_OFFSET),
                    segment.get(INT64, offset + PRODUCER_ID_OFFSET),
                    segment.get(INT16, offset + PRODUCER_EPOCH_OFFSET),
                    segment.get(INT32, offset + BASE_SEQUENCE_OFFSET));
        }
        return batchEnd;
    }

    private static void validateRecords(
            final MemorySegment segment,
            final long offset,
            final long batchEnd,
            final Mode mode,
            final BatchDecompressor decompressor) {
        final RecordBatch batch = new RecordBatch().wrap(segment, offset);
        final RecordCursor cursor = new RecordCursor().reset(batch, decompressor);
        final boolean decompressed = batch.compressionId() != 0;
        final int lastOffsetDelta = batch.lastOffsetDelta();
        int index = 0;
        int previousDelta = -1;
        while (cursor.next()) {
            final Record record = cursor.record();
            final int delta = record.offsetDelta();
            final boolean ok =
                    mode == Mode.PRODUCE ? delta == index : delta > previousDelta && delta <= lastOffsetDelta;
            if (!ok) {
                throw new InvalidRecordBatchException(
                        INVALID_OFFSET_DELTA,
                        offset,
                        record.position(),
                        "record " + index + " offset delta",
                        mode == Mode.PRODUCE ? Integer.toString(index) : (previousDelta + 1) + ".." + lastOffsetDelta,
                        Integer.toString(delta),
                        decompressed,
                        null);
            }
            previousDelta = delta;
            index++;
        }
        if (cursor.position() != cursor.limit()) {
            throw new InvalidRecordBatchException(
                    RECORDS_SIZE_MISMATCH,
                    offset,
                    cursor.position(),
                    "records",
                    "records ending at " + cursor.limit(),
                    (cursor.limit() - cursor.position()) + " bytes left over after " + index + " records",
                    decompressed,
                    null);
        }
    }

    /**
     * Fully validates batch after batch from {@code offset}, stopping at the first invalid or incomplete one.
     *
     * @return the end of the last valid batch ({@code offset} if the first is not)
     */
    public static long validPrefixEnd(
            final MemorySegment segment,
            final long offset,
            final long limit,
            final Mode mode,
            final BatchDecompressor decompressor) {
        long position = offset;
        while (structure(segment, position, limit) == Structure.COMPLETE) {
            try {
                position += validate(segment, position, limit, mode, decompressor);
            } catch (final InvalidRecordBatchException e) {
                return position;
            }
        }
        return position;
    }

    // ------------------------------------------------------------------ cheap structural checks

    /**
     * Looks only at the length and magic fields of the batch at {@code offset}: is it whole below {@code limit},
     * not there yet, or impossible? Reads nothing at or past {@code limit}; allocates nothing.
     */
    public static Structure structure(final MemorySegment segment, final long offset, final long limit) {
        final long end = Math.min(limit, segment.byteSize());
        final long available = end - offset;
        if (offset < 0 || available <= 0) {
            return Structure.INCOMPLETE;
        }
        if (available >= LENGTH_OFFSET + 4) {
            final int length = segment.get(INT32, offset + LENGTH_OFFSET);
            if (length < MIN_LENGTH) {
                return Structure.MALFORMED;
            }
            if (available > MAGIC_OFFSET && segment.get(INT8, offset + MAGIC_OFFSET) != MAGIC_V2) {
                return Structure.MALFORMED;
            }
            if (available < HEADER_LENGTH || LOG_OVERHEAD + (long) length > available) {
                return Structure.INCOMPLETE;
            }
            return Structure.COMPLETE;
        }
        return Structure.INCOMPLETE;
    }

    /** True when {@link #structure} says {@link Structure#COMPLETE}. */
    public static boolean isStructurallyComplete(final MemorySegment segment, final long offset, final long limit) {
        return structure(segment, offset, limit) == Structure.COMPLETE;
    }

    /**
     * Steps over structurally complete batches from {@code offset} and returns where the last of them ends: {@code
     * offset} itself if none is complete. No CRC check; allocates nothing. Use {@link #structure} at the returned
     * position to tell a partial trailing batch (wait for more bytes) from garbage.
     */
    public static long readableBatchEnd(final MemorySegment segment, final long offset, final long limit) {
        long position = offset;
        long size;
        while ((size = completeBatchSize(segment, position, limit)) > 0) {
            position += size;
        }
        return position;
    }

    /**
     * The size of the batch at {@code offset} where {@link #structure} says it is {@link Structure#COMPLETE} below
     * {@code limit}, or -1: the one place that bounds a batch's length field by the memory it lies in.
     */
    public static long completeBatchSize(final MemorySegment segment, final long offset, final long limit) {
        return structure(segment, offset, limit) == Structure.COMPLETE ? batchSize(segment, offset) : -1;
    }

    private static String hex(final long crc) {
        return String.format("0x%08x", crc);
    }
}
