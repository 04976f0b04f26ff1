package io.isthmus.protocol.record;

/**
 * A record batch, or a record in it, is malformed. Unchecked: readers and the validator throw it and nothing else
 * for bad input bytes.
 *
 * <p>It carries where the batch starts ({@link #batchOffset()}), the position of the offending bytes in the segment
 * that was read ({@link #position()}, for records of a compressed batch a position in the decompressed records
 * section, as said by {@link #inDecompressedRecords()}), the field, and the expected and actual values. The message
 * reads like {@code CRC_MISMATCH: batchOffset=0 position=17 field=crc expected=0x1234abcd actual=0x00000000}.
 */
public final class InvalidRecordBatchException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Why a batch was rejected. */
    public enum Reason {
        /** Fewer than {@link RecordBatchDescriptor#HEADER_LENGTH} bytes are available for the header. */
        TRUNCATED_HEADER,
        /** The length field is smaller than an empty batch. */
        INVALID_LENGTH,
        /** The batch extends past the readable limit. */
        BATCH_PAST_LIMIT,
        /** The magic byte is not 2. */
        INVALID_MAGIC,
        /** The stored CRC-32C does not match the bytes. */
        CRC_MISMATCH,
        /** The compression codec id is not one of the known five. */
        UNKNOWN_COMPRESSION,
        /** The record count is negative (or zero in a produced batch). */
        INVALID_RECORD_COUNT,
        /** The record count does not match the last offset delta (produce validation). */
        RECORD_COUNT_MISMATCH,
        /** A record's offset delta is not what its position requires, or not increasing. */
        INVALID_OFFSET_DELTA,
        /** A varint is longer than 5 bytes (10 for a varlong) or runs past its bounds. */
        INVALID_VARINT,
        /** A record's length is negative, or a record or one of its fields runs past its bounds. */
        RECORD_OVERRUN,
        /** A record's fields do not add up to the record's length. */
        RECORD_LENGTH_MISMATCH,
        /** A key, value or header length is invalid (below -1, or a null header key). */
        INVALID_FIELD_LENGTH,
        /** A header count is negative. */
        INVALID_HEADER_COUNT,
        /** The records do not fill the batch exactly (bytes missing or left over). */
        RECORDS_SIZE_MISMATCH,
        /** The compressed records section cannot be decompressed. */
        CORRUPT_COMPRESSED_DATA,
        /**
         * The compressed records section decompresses to more than the decompressor's limit (a decompression bomb, or
         * a batch over the broker's {@code message.max.bytes}).
         */
        DECOMPRESSED_TOO_LARGE
    }

    private final Reason reason;
    private final long batchOffset;
    private final long position;
    private final String field;
    private final String expected;
    private final String actual;
    private final boolean inDecompressedRecords;

    public InvalidRecordBatchException(
            final Reason reason,
            final long batchOffset,
            final long position,
            final String field,
            final String expected,
            final String actual) {
        this(reason, batchOffset, position, field, expected, actual, false, null);
    }

    public InvalidRecordBatchException(
            final Reason reason,
            final long batchOffset,
            final long position,
            final String field,
            final String expected,
            final String actual,
            final boolean inDecompressedRecords,
            final Throwable cause) {
        super(message(reason, batchOffset, position, field, expected, actual, inDecompressedRecords), cause);
        this.reason = reason;
        this.batchOffset = batchOffset;
        this.position = position;
        this.field = field;
        this.expected = expected;
        this.actual = actual;
        this.inDecompressedRecords = inDecompressedRecords;
    }

    private static String message(
            final Reason reason,
            final long batchOffset,
            final long position,
            final String field,
            final String expected,
            final String actual,
            final boolean inDecompressedRecords) {
        final StringBuilder sb = new StringBuilder(128)
                .append(reason)
                .append(": batchOffset=")
                .append(batchOffset)
                .append(" position=")
                .append(position);
        if (inDecompressedRecords) {
            sb.append(" (in decompressed records)");
        }
        sb.append(" field=").append(field);
        if (expected != null || actual != null) {
            sb.append(" expected=").append(expected).append(" actual=").append(actual);
        }
        return sb.toString();
    }

    /** Returns a copy of this exception re-targeted at a batch offset (used when a nested parser lacked it). */
    InvalidRecordBatchException atBatch(final long newBatchOffset, final boolean decompressed) {
        return new InvalidRecordBatchException(
                reason, newBatchOffset, position, field, expected, actual, decompressed, getCause());
    }

    public Reason reason() {
        return reason;
    }

    /** Offset of the start of the batch in the segment it was read from; -1 when unknown. */
    public long batchOffset() {
        return batchOffset;
    }

    /** Position of the offending bytes. */
    public long position() {
        return position;
    }

    public String field() {
        return field;
    }

    public String expected() {
        return expected;
    }

    public String actual() {
        return actual;
    }

    /** True when {@link #position()} is a position in a compressed batch's decompressed records. */
    public boolean inDecompressedRecords() {
        return inDecompressedRecords;
    }
}
