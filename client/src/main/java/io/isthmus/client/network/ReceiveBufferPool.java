package io.isthmus.client.network;

import java.util.ArrayDeque;

/**
 * A pool of off-heap {@link ReceiveBuffer}s. Taking a buffer from a non-empty pool allocates nothing; an empty pool
 * makes a new buffer (the pool grows to the number of buffers held at once, e.g. a fetch response being read while the
 * application still holds the previous one).
 *
 * <p>Thread-safe: a consumer's application thread gives buffers back while its I/O takes them.
 */
public final class ReceiveBufferPool implements AutoCloseable {
    private final long initialCapacity;
    private final ArrayDeque<ReceiveBuffer> free = new ArrayDeque<>();
    private int created;
    private boolean closed;

    public ReceiveBufferPool(final long initialCapacity) {
        if (initialCapacity <= 0) {
            throw new IllegalArgumentException("initialCapacity=" + initialCapacity);
        }
        this.initialCapacity = initialCapacity;
    }

    /** A buffer for the caller's exclusive use until it calls {@link ReceiveBuffer#release()}. */
    public synchronized ReceiveBuffer acquire() {
        if (closed) {
            throw new IllegalStateException("receive buffer pool is closed");
        }
        ReceiveBuffer buffer = free.pollFirst();
        if (buffer == null) {
            buffer = new ReceiveBuffer(this, initialCapacity);
            created++;
        }
        buffer.inUse(true);
        return buffer;
    }

    synchronized void release(final ReceiveBuffer buffer) {
        if (!buffer.inUse()) {
            throw new IllegalStateException("receive buffer released twice: capacity=" + buffer.capacity());
        }
        buffer.inUse(false);
        if (closed) {
            buffer.free();
        } else {
            free.addFirst(buffer);
        }
    }

    /** Buffers made so far (the most ever held at once). */
    public synchronized int created() {
        return created;
    }

    /** Buffers idle in the pool. */
    public synchronized int available() {
        return free.size();
    }

    /** Frees the idle buffers now and buffers still in use when they are released. */
    @Override
    public synchronized void close() {
        closed = true;
        for (final ReceiveBuffer buffer : free) {
            buffer.free();
        }
        free.clear();
    }
}
