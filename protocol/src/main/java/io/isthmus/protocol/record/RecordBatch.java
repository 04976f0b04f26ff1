package io.isthmus.protocol.record;

import static io.isthmus.protocol.record.RecordBatchDescriptor.*;

import java.lang.foreign.MemorySegment;

/**
 * Reusable flyweight over one RecordBatch v2 in a {@link MemorySegment} (see {@link RecordBatchDescriptor} for the
 * layout). {@link #wrap} only records where the batch is; every getter reads the bytes in place, so the flyweight
 * sees in-place changes, and wrapping allocates nothing.
 *
 * <p>The flyweight trusts the header: run {@link RecordBatchValidator} on bytes from outside first. Reads past the
 * segment still fail safely ({@link IndexOutOfBoundsException}), and record iteration raises {@link
 * InvalidRecordBatchException} for malformed records.
 *
 * <p>Records: {@link #forEachRecord(RecordHandler)} or {@link #cursor()}. For an uncompressed batch both allocate
 * nothing and hand out records read in place. A compressed batch is first decompressed into a {@link
 * BatchDecompressor}'s off-heap buffer: pass one explicitly, or the flyweight lazily creates its own (GC-managed)
 * on first use.
 *
 * <p>Not thread-safe: use one flyweight per thread.
 */
public final class RecordBatch {
    private final RecordCursor cursor = new RecordCursor();
    private MemorySegment segment;
    private long offset;
    private BatchDecompressor ownDecompressor;

    /** Points the flyweight at the batch starting at {@code offset} of {@code segment}. */
    public RecordBatch wrap(final MemorySegment segment, final long offset) {
        this.segment = segment;
        this.offset = offset;
        return this;
    }

    /** The segment the batch lies in. */
    public MemorySegment segment() {
        return segment;
    }

    /** Where the batch starts in {@link #segment()}. */
    public long offset() {
        return offset;
    }

    /** Position just past the batch in {@link #segment()}: where the next batch starts. */
    public long nextBatchOffset() {
        return offset + sizeInBytes();
    }

    // ------------------------------------------------------------------ header fields

    public long baseOffset() {
        return segment.get(INT64, offset + BASE_OFFSET_OFFSET);
    }

    /** Rewrites the base offset in place; it lies outside the CRC, which stays valid. */
    public RecordBatch baseOffset(final long baseOffset) {
        segment.set(INT64, offset + BASE_OFFSET_OFFSET, baseOffset);
        return this;
    }

    /** The length field: bytes after it, i.e. {@link #sizeInBytes()} minus {@link RecordBatchDescriptor#LOG_OVERHEAD}. */
    public int length() {
        return segment.get(INT32, offset + LENGTH_OFFSET);
    }

    /** The whole batch size in bytes, including the base offset and length fields. */
    public int sizeInBytes() {
        return LOG_OVERHEAD + length();
    }

    public int partitionLeaderEpoch() {
        return segment.get(INT32, offset + PARTITION_LEADER_EPOCH_OFFSET);
    }

    /** Rewrites the partition leader epoch in place; it lies outside the CRC, which stays valid. */
    public RecordBatch partitionLeaderEpoch(final int epoch) {
        segment.set(INT32, offset + PARTITION_LEADER_EPOCH_OFFSET, epoch);
        return this;
    }

    public byte magic() {
        return segment.get(INT8, offset + MAGIC_OFFSET);
    }

    /** The stored CRC-32C, unsigned. */
    public long crc() {
        return Integer.toUnsignedLong(segment.get(INT32, offset + CRC_OFFSET));
    }

    public short attributes() {
        return segment.get(INT16, offset + ATTRIBUTES_OFFSET);
    }

    /** Compression codec id (attribute bits 0-2); may name no known codec in a corrupt batch. */
    public int compressionId() {
        return attributes() & COMPRESSION_CODEC_MASK;
    }

    /**
     * The compression codec.
     *
     * @throws InvalidRecordBatchException (UNKNOWN_COMPRESSION) when bits 0-2 name no codec
     */
    public CompressionType compression() {
        final int id = compressionId();
        if (!CompressionType.isKnown(id)) {
            throw new InvalidRecordBatchException(
                    InvalidRecordBatchException.Reason.UNKNOWN_COMPRESSION,
                    offset,
                    offset + ATTRIBUTES_OFFSET,
                    "attributes.compression",
                    "0..4",
                    Integer.toString(id));
        }
        return CompressionType.forId(id);
    }

    public TimestampType timestampType() {
        return (attributes() & TIMESTAMP_TYPE_MASK) != 0 ? TimestampType.LOG_APPEND_TIME : TimestampType.CREATE_TIME;
    }

    public boolean isTransactional() {
        return (attributes() & TRANSACTIONAL_FLAG_MASK) != 0;
    }

    public boolean isControl() {
        return (attributes() & CONTROL_FLAG_MASK) != 0;
    }

    public boolean hasDeleteHorizon() {
        return (attributes() & DELETE_HORIZON_FLAG_MASK) != 0;
    }

    /** With the delete-horizon flag set, the base timestamp is the delete horizon (Kafka's KIP-534). */
    public long deleteHorizonMs() {
        return hasDeleteHorizon() ? baseTimestamp() : NO_TIMESTAMP;
    }

    public int lastOffsetDelta() {
        return segment.get(INT32, offset + LAST_OFFSET_DELTA_OFFSET);
    }

    public long lastOffset() {
        return baseOffset() + lastOffsetDelta();
    }

    /** The offset after this batch: {@link #lastOffset()} + 1. */
    public long nextOffset() {
        return lastOffset() + 1;
    }

    public long baseTimestamp() {
        return segment.get(INT64, offset + BASE_TIMESTAMP_OFFSET);
    }

    public long maxTimestamp() {
        return segment.get(INT64, offset + MAX_TIMESTAMP_OFFSET);
    }

    public long producerId() {
        return segment.get(INT64, offset + PRODUCER_ID_OFFSET);
    }

    public short producerEpoch() {
        return segment.get(INT16, offset + PRODUCER_EPOCH_OFFSET);
    }

    public int baseSequence() {
        return segment.get(INT32, offset + BASE_SEQUENCE_OFFSET);
    }

    /** Last sequence number, wrapping at Integer.MAX_VALUE like Kafka; {@code NO_SEQUENCE} if there is none. */
    public int lastSequence() {
        return RecordBatchDescriptor.lastSequence(baseSequence(), lastOffsetDelta());
    }

    public int recordCount() {
        return segment.get(INT32, offset + RECORDS_COUNT_OFFSET);
    }

    // ------------------------------------------------------------------ CRC

    /** Computes the CRC-32C over attributes..end of batch, as stored in the CRC field. */
    public long computeCrc() {
        return Crc32c.compute(segment, offset + CRC_START_OFFSET, (long) sizeInBytes() - CRC_START_OFFSET);
    }

    /** True when the batch is at least a header long and its stored CRC matches its bytes. */
    public boolean isCrcValid() {
        final int length = length();
        if (length < MIN_LENGTH || offset + LOG_OVERHEAD + (long) length > segment.byteSize()) {
            return false;
        }
        return crc() == computeCrc();
    }

    /** Recomputes and stores the CRC (after changing a covered field, e.g. {@link #logAppendTime(long)}). */
    public RecordBatch updateCrc() {
        segment.set(INT32, offset + CRC_OFFSET, (int) computeCrc());
        return this;
    }

    /**
     * Stamps the batch as log-append-time with the given time (the broker's job when the topic uses {@code
     * LogAppendTime}): sets the timestamp-type bit and the max timestamp, then recomputes the CRC, since both fields
     * lie inside it.
     */
    public RecordBatch logAppendTime(final long timestamp) {
        final short attributes = (short) (attributes() | TIMESTAMP_TYPE_MASK);
        segment.set(INT16, offset + ATTRIBUTES_OFFSET, attributes);
        segment.set(INT64, offset + MAX_TIMESTAMP_OFFSET, timestamp);
        return updateCrc();
    }

    // ------------------------------------------------------------------ records

    /**
     * Calls {@code handler} once per record, in order, with a reused {@link Record} flyweight. A compressed batch is
     * decompressed into this flyweight's own decompressor (created on first need).
     *
     * @return the number of records visited
     * @throws InvalidRecordBatchException if a record is malformed or the compressed data is corrupt
     */
    public int forEachRecord(final RecordHandler handler) {
        return forEachRecord(handler, null);
    }

    /**
     * Calls {@code handler} once per record, decompressing a compressed batch into {@code decompressor} (if null, the
     * flyweight's own).
     */
    public int forEachRecord(final RecordHandler handler, final BatchDecompressor decompressor) {
        final RecordCursor c = cursor(decompressor);
        int count = 0;
        while (c.next()) {
            handler.onRecord(c.record());
            count++;
        }
        return count;
    }

    /** This flyweight's reusable cursor, positioned at the first record (see {@link #forEachRecord}). */
    public RecordCursor cursor() {
        return cursor(null);
    }

    /** This flyweight's reusable cursor, positioned at the first record, decompressing into {@code decompressor}. */
    public RecordCursor cursor(final BatchDecompressor decompressor) {
        BatchDecompressor d = decompressor;
        if (d == null && compressionId() != CompressionType.NONE.id()) {
            if (ownDecompressor == null) {
                ownDecompressor = BatchDecompressor.ofAuto();
            }
            d = ownDecompressor;
        }
        return cursor.reset(this, d);
    }

    @Override
    public String toString() {
        if (segment == null) {
            return "RecordBatch{unwrapped}";
        }
        return "RecordBatch{offset=" + offset + ", baseOffset=" + baseOffset() + ", lastOffsetDelta="
                + lastOffsetDelta() + ", size=" + sizeInBytes() + ", magic=" + magic() + ", attributes=0x"
                + Integer.toHexString(attributes() & 0xFFFF) + ", records=" + recordCount() + ", crc=0x"
                + Long.toHexString(crc()) + '}';
    }
}
