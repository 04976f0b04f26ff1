package io.isthmus.client.producer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * Off-heap batch buffers of {@code batch.size} bytes, at most {@code buffer.memory} in all, allocated on first need and
 * reused for the producer's lifetime. When all are taken, {@link #acquire} blocks (up to {@code max.block.ms}) until
 * the sender gives one back: that is the producer's back-pressure.
 */
final class BatchBufferPool implements AutoCloseable {
    private final Arena arena = Arena.ofShared();
    private final int bufferSize;
    private final int maxBuffers;
    private final ArrayDeque<MemorySegment> free = new ArrayDeque<>();
    private int allocated;
    private boolean closed;
    /** All buffers in one piece (RDMA: registered once), or null: each allocated on first need. */
    private final MemorySegment slab;

    BatchBufferPool(final int bufferSize, final long totalMemory) {
        this(bufferSize, totalMemory, false);
    }

    /**
     * @param contiguous allocate every buffer at once in one slab, so that the RDMA transport registers the memory once
     *     instead of once per buffer
     */
    BatchBufferPool(final int bufferSize, final long totalMemory, final boolean contiguous) {
        this.bufferSize = bufferSize;
        this.maxBuffers = (int) Math.max(1, Math.min(Integer.MAX_VALUE, totalMemory / bufferSize));
        this.slab = contiguous ? arena.allocate((long) maxBuffers * bufferSize, 4096) : null;
    }

    /** The slab all buffers lie in, or null when they are allocated one by one. */
    MemorySegment slab() {
        return slab;
    }

    int bufferSize() {
        return bufferSize;
    }

    synchronized MemorySegment acquire(final long maxBlockMs) {
        final long deadline = System.nanoTime() + maxBlockMs * 1_000_000L;
        while (true) {
            if (closed) {
                throw new IllegalStateException("producer is closed");
            }
            final MemorySegment buffer = free.pollFirst();
            if (buffer != null) {
                return buffer;
            }
            if (allocated < maxBuffers) {
                allocated++;
                return slab != null
                        ? slab.asSlice((long) (allocated - 1) * bufferSize, bufferSize)
                        : arena.allocate(bufferSize, 64);
            }
            final long remainingMs = (deadline - System.nanoTime()) / 1_000_000L;
            if (remainingMs <= 0) {
                throw new TimeoutException("no batch buffer free within max.block.ms=" + maxBlockMs + ": buffers="
                        + maxBuffers + ", batch.size=" + bufferSize + " (raise buffer.memory or slow down)");
            }
            try {
                wait(remainingMs);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new org.apache.kafka.common.errors.InterruptException(e);
            }
        }
    }

    synchronized void release(final MemorySegment buffer) {
        free.addFirst(buffer);
        notifyAll();
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            free.clear();
            notifyAll();
            arena.close();
        }
    }
}
