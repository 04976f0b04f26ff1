package io.isthmus.protocol.record;

import static io.isthmus.protocol.record.InvalidRecordBatchException.Reason.RECORDS_SIZE_MISMATCH;

import java.lang.foreign.MemorySegment;

/**
 * Pull-style iteration over the records of one batch, allocation-free: {@code while (cursor.next()) use(cursor.record())}.
 *
 * <p>Obtain one from {@link RecordBatch#cursor()} (reused by that flyweight) or create one and call {@link
 * #reset(RecordBatch, BatchDecompressor)}. The {@link Record} returned by {@link #record()} is the same instance every
 * time. Malformed records raise {@link InvalidRecordBatchException} with the batch offset filled in.
 */
public final class RecordCursor {
    private final Record record = new Record();

    private MemorySegment segment;
    private long position;
    private long limit;
    private int remaining;
    private long baseOffset;
    private long baseTimestamp;
    private long logAppendTime;
    private long batchOffset;
    private boolean decompressed;

    /**
     * Positions the cursor at the first record of {@code batch}. A compressed batch is decompressed into {@code
     * decompressor}'s buffer first (which must then stay untouched until the iteration is done).
     */
    public RecordCursor reset(final RecordBatch batch, final BatchDecompressor decompressor) {
        final long logAppend = batch.timestampType() == TimestampType.LOG_APPEND_TIME
                ? batch.maxTimestamp()
                : RecordBatchDescriptor.NO_TIMESTAMP;
        final int count = batch.recordCount();
        if (count < 0) {
            throw new InvalidRecordBatchException(
                    InvalidRecordBatchException.Reason.INVALID_RECORD_COUNT,
                    batch.offset(),
                    batch.offset() + RecordBatchDescriptor.RECORDS_COUNT_OFFSET,
                    "records count",
                    ">= 0",
                    Integer.toString(count));
        }
        if (batch.compression() == CompressionType.NONE) {
            return reset(
                    batch.segment(),
                    batch.offset() + RecordBatchDescriptor.RECORDS_OFFSET,
                    batch.offset() + batch.sizeInBytes(),
                    count,
                    batch.baseOffset(),
                    batch.baseTimestamp(),
                    logAppend,
                    batch.offset(),
                    false);
        }
        if (decompressor == null) {
            throw new IllegalArgumentException("a " + batch.compression() + " batch needs a BatchDecompressor");
        }
        final long size = decompressor.decompress(batch);
        return reset(
                decompressor.buffer(),
                0,
                size,
                count,
                batch.baseOffset(),
                batch.baseTimestamp(),
                logAppend,
                batch.offset(),
                true);
    }

    /**
     * Positions the cursor at raw (uncompressed) records: {@code count} records starting at {@code position} of
     * {@code segment}, none extending past {@code limit}.
     */
    public RecordCursor reset(
            final MemorySegment segment,
            final long position,
            final long limit,
            final int count,
            final long baseOffset,
            final long baseTimestamp,
            final long logAppendTime,
            final long batchOffset,
            final boolean decompressed) {
        this.segment = segment;
        this.position = position;
        this.limit = limit;
        this.remaining = count;
        this.baseOffset = baseOffset;
        this.baseTimestamp = baseTimestamp;
        this.logAppendTime = logAppendTime;
        this.batchOffset = batchOffset;
        this.decompressed = decompressed;
        return this;
    }

    /** Advances to the next record; false when all records have been read. */
    public boolean next() {
        if (remaining <= 0) {
            return false;
        }
        if (position >= limit) {
            throw new InvalidRecordBatchException(
                    RECORDS_SIZE_MISMATCH,
                    batchOffset,
                    position,
                    "records",
                    remaining + " more record(s) before position " + limit,
                    "end of the records section",
                    decompressed,
                    null);
        }
        try {
            position = record.wrap(segment, position, limit, baseOffset, baseTimestamp, logAppendTime);
        } catch (final InvalidRecordBatchException e) {
            throw e.atBatch(batchOffset, decompressed);
        }
        remaining--;
        return true;
    }

    /** The current record (the same flyweight every time). */
    public Record record() {
        return record;
    }

    /** Records not yet returned by {@link #next()}. */
    public int remaining() {
        return remaining;
    }

    /** Position just past the last record read. */
    public long position() {
        return position;
    }

    /** End of the records region. */
    public long limit() {
        return limit;
    }
}
