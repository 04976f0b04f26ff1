package io.isthmus.client.rdma;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The consumer's READ targets: buffers are created on first need (one per batch the application holds open at once, so
 * a handful) and reused for the consumer's lifetime; each is registered once per connection.
 */
final class RdmaReadBufferPool implements AutoCloseable {
    private final int bufferBytes;
    private final ArrayDeque<RdmaReadBuffer> free = new ArrayDeque<>();
    private final List<RdmaReadBuffer> all = new ArrayList<>();
    private boolean closed;

    RdmaReadBufferPool(final int bufferBytes) {
        this.bufferBytes = bufferBytes;
    }

    int bufferBytes() {
        return bufferBytes;
    }

    RdmaReadBuffer acquire() {
        if (closed) {
            throw new IllegalStateException("RDMA read buffer pool is closed");
        }
        RdmaReadBuffer buffer = free.pollFirst();
        if (buffer == null) {
            buffer = new RdmaReadBuffer(this, bufferBytes);
            all.add(buffer);
        }
        buffer.inUse = true;
        return buffer;
    }

    void release(final RdmaReadBuffer buffer) {
        if (!buffer.inUse) {
            throw new IllegalStateException("RDMA read buffer released twice");
        }
        buffer.inUse = false;
        if (closed) {
            buffer.free();
        } else {
            free.addFirst(buffer);
        }
    }

    /** Buffers created so far (for tests). */
    int created() {
        return all.size();
    }

    /** Frees every buffer not leased now; leased ones are freed when released. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (final RdmaReadBuffer buffer : all) {
            if (!buffer.inUse) {
                buffer.free();
            }
        }
        free.clear();
    }
}
