package io.isthmus.client.consumer.internals;

import io.isthmus.client.consumer.internals.SubscriptionState.PartitionState;
import io.isthmus.client.network.LeasedBuffer;
import io.isthmus.protocol.record.BatchDecompressor;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;

/**
 * What one fetch brought, still in the buffer its transport read it into (a TCP receive buffer, an RDMA READ target):
 * a {@link FetchedSlice} per partition with whole batches. Records are read in place from here and the buffer goes
 * back to its transport only when the data is released, by the application closing its batch or by the iterator
 * reaching the end.
 *
 * <p>Pooled ({@link FetchedDataPool}) with its slices and decompressors, so a steady consumer allocates none of them
 * per fetch, per partition or per batch.
 */
public final class FetchedData {
    private final FetchedDataPool pool;
    private final ArrayList<FetchedSlice> slices = new ArrayList<>();
    private final ArrayList<BatchDecompressor> decompressors = new ArrayList<>();
    private int sliceCount;
    private int decompressorsUsed;
    private LeasedBuffer buffer;

    FetchedData(final FetchedDataPool pool) {
        this.pool = pool;
    }

    /** Takes the buffer the slices lie in; it is released with this data. */
    void lease(final LeasedBuffer buffer) {
        if (this.buffer != null) {
            throw new IllegalStateException("fetched data already holds a buffer");
        }
        this.buffer = buffer;
    }

    /** The memory the slices lie in. */
    public MemorySegment segment() {
        return buffer.segment();
    }

    /**
     * Adds a partition's whole batches, with the readable end and next offset the fetcher's one walk over their headers
     * found (see {@link io.isthmus.client.record.ReadableBatches}); nothing here reads the batches.
     */
    FetchedSlice addSlice(
            final PartitionState partition,
            final long start,
            final long readableEnd,
            final long fetchOffset,
            final long nextOffset) {
        if (sliceCount == slices.size()) {
            slices.add(new FetchedSlice());
        }
        final FetchedSlice slice = slices.get(sliceCount);
        slice.set(partition, start, readableEnd, fetchOffset, nextOffset);
        sliceCount++;
        return slice;
    }

    public int sliceCount() {
        return sliceCount;
    }

    public FetchedSlice slice(final int index) {
        if (index >= sliceCount) {
            throw new IndexOutOfBoundsException("slice " + index + " of " + sliceCount);
        }
        return slices.get(index);
    }

    public boolean isEmpty() {
        return sliceCount == 0;
    }

    /** Bytes of whole record batches in the slices, as fetched (compressed batches count compressed). */
    public long batchBytes() {
        long bytes = 0;
        for (int i = 0; i < sliceCount; i++) {
            final FetchedSlice slice = slices.get(i);
            bytes += slice.readableEnd() - slice.start();
        }
        return bytes;
    }

    /** A decompressor of its own for the next compressed batch: its output must live as long as this data. */
    BatchDecompressor nextDecompressor() {
        if (decompressorsUsed == decompressors.size()) {
            decompressors.add(new BatchDecompressor());
        }
        return decompressors.get(decompressorsUsed++);
    }

    /**
     * Gives the buffer back to its transport and this object back to its pool: every slice of the records in it is
     * dead from here on. The decompressors stay for reuse.
     */
    public void release() {
        pool.recycle(this);
    }

    /**
     * Drops the slices of partitions seeked, reset or unassigned since the fetch, keeping the order of the others:
     * done once when the data is handed to the application as a whole, which then reads it without looking at the
     * partitions' state again (possibly on another thread).
     */
    public void retainCurrentSlices() {
        int kept = 0;
        for (int i = 0; i < sliceCount; i++) {
            final FetchedSlice slice = slices.get(i);
            if (!slice.isCurrent()) {
                slice.clear();
                continue;
            }
            if (kept != i) {
                slices.set(i, slices.get(kept));
                slices.set(kept, slice);
            }
            kept++;
        }
        sliceCount = kept;
    }

    void clear() {
        if (buffer != null) {
            final LeasedBuffer leased = buffer;
            buffer = null;
            leased.release();
        }
        for (int i = 0; i < sliceCount; i++) {
            slices.get(i).clear();
        }
        sliceCount = 0;
        decompressorsUsed = 0;
    }

    /** Frees the decompressors: the consumer is closed. */
    void free() {
        clear();
        for (final BatchDecompressor decompressor : decompressors) {
            decompressor.close();
        }
        decompressors.clear();
    }
}
