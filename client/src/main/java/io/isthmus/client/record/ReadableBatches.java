package io.isthmus.client.record;

import io.isthmus.protocol.record.RecordBatchDescriptor;
import io.isthmus.protocol.record.RecordBatchValidator;
import java.lang.foreign.MemorySegment;

/**
 * The one walk over the headers of fetched record batches. A transport hands a range of bytes, [start, limit), that
 * holds a partition's batches from some fetch offset on; its end may cut the last batch short (a Kafka fetch response
 * may, and so may an RDMA READ of a segment still being written). One step per batch finds both things the consumer
 * needs before any record is read:
 *
 * <ul>
 *   <li>the <em>readable end</em>: where the last whole batch ends; what follows is a truncated tail, never read;
 *   <li>the <em>next offset</em>: the offset after the last whole batch, where the next fetch of the partition starts.
 * </ul>
 *
 * <p>Everything downstream trusts these two numbers: the fetched slice carries them, and the record iterator reads
 * batches only up to the readable end without stepping over headers again. A step looks at the length and magic fields
 * alone (see {@link RecordBatchValidator#completeBatchSize}), so a walk reads no record and checks no CRC; {@code
 * check.crcs} checks each batch once, when the iterator opens it.
 *
 * <p>Reused: {@link #scan} overwrites the previous answer and allocates nothing. One per fetching thread.
 */
public final class ReadableBatches {
    private long start;
    private long end;
    private long nextOffset;

    /**
     * Steps over the whole batches in {@code [start, limit)} of {@code segment}.
     *
     * @param fetchOffset the offset the bytes were fetched from: the next offset when no batch is whole
     * @return this, holding the readable end and the next offset
     */
    public ReadableBatches scan(
            final MemorySegment segment, final long start, final long limit, final long fetchOffset) {
        return scan(segment, start, limit, fetchOffset, Long.MAX_VALUE);
    }

    /**
     * {@link #scan(MemorySegment, long, long, long)} that also stops before the first batch whose base offset is at or
     * above {@code offsetBound} (a {@code read_committed} reader's last stable offset, which is always a batch
     * boundary).
     */
    public ReadableBatches scan(
            final MemorySegment segment,
            final long start,
            final long limit,
            final long fetchOffset,
            final long offsetBound) {
        long position = start;
        long next = fetchOffset;
        long size;
        while ((size = RecordBatchValidator.completeBatchSize(segment, position, limit)) > 0
                && RecordBatchDescriptor.baseOffset(segment, position) < offsetBound) {
            next = Math.max(next, RecordBatchDescriptor.lastOffset(segment, position) + 1);
            position += size;
        }
        this.start = start;
        this.end = position;
        this.nextOffset = next;
        return this;
    }

    /** Where the last whole batch ends: the start when there is none. */
    public long end() {
        return end;
    }

    /** The offset after the last whole batch: the fetch offset when there is none. */
    public long nextOffset() {
        return nextOffset;
    }

    /** True when not even the first batch is whole: nothing to hand out. */
    public boolean isEmpty() {
        return end == start;
    }
}
