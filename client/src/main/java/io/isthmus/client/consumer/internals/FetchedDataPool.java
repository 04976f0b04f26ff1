package io.isthmus.client.consumer.internals;

import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Spare {@link FetchedData}, so that a steady consumer allocates none per fetch. Data comes back when released (the
 * application closed its batch, or the iterator finished it); after {@link #close()} released data is freed instead.
 *
 * <p>Owned by the consumer's polling thread: the thread of the last {@link #acquire()}. Data released there goes
 * straight back to the spares. Data released on any other thread (a stream engine hands a batch from its fetcher
 * thread to its task thread, which closes it) waits in a concurrent queue, and the owner takes it back on its next
 * acquire: the buffers beneath belong to transports that only the polling thread may touch, so a foreign thread never
 * gives one back itself. That costs one queue node per released fetch, never one per record.
 */
public final class FetchedDataPool implements AutoCloseable {
    private final ArrayDeque<FetchedData> spares = new ArrayDeque<>();
    private final ConcurrentLinkedQueue<FetchedData> releasedElsewhere = new ConcurrentLinkedQueue<>();
    private volatile Thread owner;
    private volatile boolean closed;

    /** Empty data, holding no buffer yet; the calling thread becomes the owner. */
    public FetchedData acquire() {
        if (closed) {
            throw new IllegalStateException("fetched data pool is closed");
        }
        owner = Thread.currentThread();
        takeBackReleasedElsewhere();
        final FetchedData data = spares.pollFirst();
        return data != null ? data : new FetchedData(this);
    }

    /** Data released on other threads since the owner last looked: back to the spares, on the owner's thread. */
    public void takeBackReleasedElsewhere() {
        FetchedData data;
        while ((data = releasedElsewhere.poll()) != null) {
            data.clear();
            spares.addFirst(data);
        }
    }

    void recycle(final FetchedData data) {
        if (closed) {
            data.free();
            return;
        }
        if (Thread.currentThread() != owner) {
            releasedElsewhere.add(data);
            if (closed) {
                // The owner closed the pool meanwhile and may have drained before our add: free what is left here.
                freeReleasedElsewhere();
            }
            return;
        }
        data.clear();
        spares.addFirst(data);
    }

    /** Frees the spares now and data still held by the application when it is released. */
    @Override
    public void close() {
        closed = true;
        freeReleasedElsewhere();
        FetchedData data;
        while ((data = spares.pollFirst()) != null) {
            data.free();
        }
    }

    private void freeReleasedElsewhere() {
        FetchedData data;
        while ((data = releasedElsewhere.poll()) != null) {
            data.free();
        }
    }
}
