package io.isthmus.broker.log;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A claim on a {@link LogSegment} that keeps its mapping alive: a zero-copy read, a {@code transferTo}, an RDMA memory
 * registration. Every view it hands out is scoped to the lease's own arena, so that using a view after {@link #close()}
 * throws {@link IllegalStateException} instead of reading memory that may have been unmapped meanwhile; without a lease
 * there is no view at all.
 *
 * <p>Closing is idempotent and may happen on any thread. The lease arena is closed first, then the segment reference is
 * dropped, so the segment's mapping always outlives every view of it.
 */
public final class SegmentLease implements AutoCloseable {
    private final LogSegment segment;
    private final Arena scope = Arena.ofShared();
    private final AtomicBoolean closed = new AtomicBoolean();

    SegmentLease(final LogSegment segment) {
        this.segment = segment;
    }

    public LogSegment segment() {
        return segment;
    }

    /**
     * The whole mapping, writable, valid until this lease closes: for memory registration and for writing at the
     * tail as an RDMA producer would.
     */
    public MemorySegment memory() {
        return segment.mapping().reinterpret(scope, null);
    }

    /** {@code length} bytes from {@code position}, valid until this lease closes. */
    public MemorySegment slice(final long position, final long length) {
        return segment.mapping().asSlice(position, length).reinterpret(scope, null);
    }

    /** The segment file, for {@link FileChannel#transferTo}; valid until this lease closes. */
    public FileChannel channel() {
        return segment.channel();
    }

    public boolean isClosed() {
        return closed.get();
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            scope.close();
            segment.release();
        }
    }
}
