package io.isthmus.client.consumer.internals;

import io.isthmus.client.consumer.internals.SubscriptionState.PartitionState;
import io.isthmus.protocol.record.BatchDecompressor;
import io.isthmus.protocol.record.CompressionType;
import io.isthmus.protocol.record.Record;
import io.isthmus.protocol.record.RecordBatch;
import io.isthmus.protocol.record.RecordCursor;
import java.lang.foreign.MemorySegment;
import org.apache.kafka.common.errors.CorruptRecordException;

/**
 * Walks the records of a {@link FetchedData} in place: slice by slice, batch by batch, record by record, with reused
 * flyweights. It skips records below the offset a partition was fetched from, control batches (transaction markers),
 * batches of aborted transactions where the slice lists them ({@code read_committed}, see {@link AbortedBatchFilter}),
 * and partitions seeked since the fetch; checks batch CRCs ({@code check.crcs}); and decompresses compressed batches
 * off-heap.
 *
 * <p>It trusts the slices: each batch is read up to the slice's readable end, which the fetcher found in its one walk
 * over the headers, so no header is stepped over twice and a truncated tail after the last whole batch is never
 * looked at. The only header reads here are those of the batch being opened, for its records.
 *
 * <p>Positions move only through {@link SubscriptionState}: past skipped and finished batches here (so a poll that
 * meets only markers and aborted batches still moves on), past each record
 * handled on the callback path ({@link #consumed()}). A <em>detached</em> iterator (no subscription state) walks data
 * handed to the application as a whole: positions moved past it at hand-out, its stale slices were dropped then
 * ({@link FetchedData#retainCurrentSlices()}), and it reads nothing the polling thread owns, so it may run on another
 * thread.
 */
public final class RecordIterator {
    private final SubscriptionState subscriptions;
    private final RecordBatch batch = new RecordBatch();
    private final RecordCursor cursor = new RecordCursor();
    private final boolean checkCrcs;
    /** Decompressor shared by all batches (callback mode), or null: one per batch from the data (lease mode). */
    private final BatchDecompressor sharedDecompressor;

    private final AbortedBatchFilter abortedBatches = new AbortedBatchFilter(this::decompressor);

    private FetchedData data;
    private int sliceIndex;
    private FetchedSlice slice;
    private long batchPosition;
    private boolean inBatch;
    private MemorySegment recordSegment;
    private long batchNextOffset;

    /**
     * @param subscriptions the positions to move while iterating; null for a detached iterator
     * @param sharedDecompressor one decompressor for every batch when records are used one at a time (callbacks);
     *     null when records must stay valid until the data is released (a decompressor per batch, from the data)
     */
    public RecordIterator(
            final SubscriptionState subscriptions,
            final boolean checkCrcs,
            final BatchDecompressor sharedDecompressor) {
        this.subscriptions = subscriptions;
        this.checkCrcs = checkCrcs;
        this.sharedDecompressor = sharedDecompressor;
    }

    /** Starts over on {@code data} (null: nothing to iterate). */
    public void reset(final FetchedData data) {
        this.data = data;
        this.sliceIndex = -1;
        this.slice = null;
        this.inBatch = false;
        this.recordSegment = null;
    }

    /** The data being iterated, or null. */
    public FetchedData data() {
        return data;
    }

    /** Releases the data being iterated, if any, and iterates nothing. */
    public void releaseData() {
        final FetchedData done = data;
        reset(null);
        if (done != null) {
            done.release();
        }
    }

    /** Advances to the next record to deliver; false when the data is exhausted. */
    public boolean next() {
        if (data == null) {
            return false;
        }
        while (true) {
            if (inBatch) {
                if (subscriptions != null && !slice.isCurrent()) {
                    inBatch = false;
                    slice = null;
                    continue;
                }
                while (cursor.next()) {
                    if (cursor.record().offset() >= slice.fetchOffset()) {
                        return true;
                    }
                }
                inBatch = false;
                advancePosition(batchNextOffset);
            }
            if (slice == null || batchPosition >= slice.readableEnd()) {
                if (!nextSlice()) {
                    return false;
                }
                continue;
            }
            openBatch();
        }
    }

    private boolean nextSlice() {
        while (++sliceIndex < data.sliceCount()) {
            final FetchedSlice candidate = data.slice(sliceIndex);
            if (subscriptions == null || candidate.isCurrent()) {
                slice = candidate;
                batchPosition = candidate.start();
                abortedBatches.reset(candidate.abortedTransactions());
                return true;
            }
        }
        slice = null;
        return false;
    }

    /** Reads the header of the batch at {@link #batchPosition}, once, for its records. */
    private void openBatch() {
        final MemorySegment segment = data.segment();
        batch.wrap(segment, batchPosition);
        batchPosition = batch.nextBatchOffset();
        final long nextOffset = batch.nextOffset();
        if (nextOffset <= slice.fetchOffset()) {
            return;
        }
        if (checkCrcs && !batch.isCrcValid()) {
            final PartitionState partition = slice.partition();
            throw new CorruptRecordException("record batch CRC mismatch: topic=" + partition.topic() + ", partition="
                    + partition.partition() + ", baseOffset=" + batch.baseOffset() + ", storedCrc=0x"
                    + Long.toHexString(batch.crc()) + ", computedCrc=0x" + Long.toHexString(batch.computeCrc()));
        }
        if (abortedBatches.isAborted(batch, slice.partition()) || batch.isControl()) {
            advancePosition(nextOffset);
            return;
        }
        if (batch.compressionId() == CompressionType.NONE.id()) {
            cursor.reset(batch, null);
            recordSegment = segment;
        } else {
            final BatchDecompressor decompressor = decompressor();
            cursor.reset(batch, decompressor);
            recordSegment = decompressor.buffer();
        }
        batchNextOffset = nextOffset;
        inBatch = true;
    }

    /** The decompressor for the next compressed batch: the shared one, or one of the data's own. */
    private BatchDecompressor decompressor() {
        return sharedDecompressor != null ? sharedDecompressor : data.nextDecompressor();
    }

    /** The record {@link #next()} moved to (the same flyweight every time). */
    public Record record() {
        return cursor.record();
    }

    /** The partition of the current record. */
    public PartitionState partition() {
        return slice.partition();
    }

    /** The segment the current record lies in: the fetched buffer, or a decompression buffer. */
    public MemorySegment recordSegment() {
        return recordSegment;
    }

    /**
     * The application is done with the current record (callback path): its partition's position moves past it. Nothing
     * moves if the handler dropped the data meanwhile (an assignment change).
     */
    public void consumed() {
        if (slice != null) {
            advancePosition(cursor.record().offset() + 1);
        }
    }

    private void advancePosition(final long offset) {
        if (subscriptions != null) {
            subscriptions.advancePosition(slice.partition(), slice.generation(), offset);
        }
    }
}
