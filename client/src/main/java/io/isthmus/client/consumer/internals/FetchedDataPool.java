package io.isthmus.client.consumer.internals;

import java.util.ArrayDeque;

/**
 * Spare {@link FetchedData}, so that a steady consumer allocates none per fetch. Data comes back when released (the
 * application closed its batch, or the iterator finished it); after {@link #close()} released data is freed instead.
 *
 * <p>Owned by the consumer's polling thread, the only thread that may release fetched data.
 */
public final class FetchedDataPool implements AutoCloseable {
    private final ArrayDeque<FetchedData> spares = new ArrayDeque<>();
    private boolean closed;

    /** Empty data, holding no buffer yet. */
    public FetchedData acquire() {
        if (closed) {
            throw new IllegalStateException("fetched data pool is closed");
        }
        final FetchedData data = spares.pollFirst();
        return data != null ? data : new FetchedData(this);
    }

    void recycle(final FetchedData data) {
        if (closed) {
            data.free();
        } else {
            spares.addFirst(data);
        }
    }

    /** Frees the spares now and data still held by the application when it is released. */
    @Override
    public void close() {
        closed = true;
        FetchedData data;
        while ((data = spares.pollFirst()) != null) {
            data.free();
        }
    }
}
