package io.isthmus.client.rdma;

import io.isthmus.client.network.LeasedBuffer;
import io.isthmus.ffi.verbs.AccessFlags;
import io.isthmus.ffi.verbs.MemoryRegion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A registered RDMA READ target of {@code rdma.read.bytes}: where a consumer's segment READs land and where the records
 * handed to the application stay, in place, until the batch that leases it is closed. The memory has an arena of its
 * own, so it outlives a connection that fails while the application still holds records in it; it is registered with
 * whichever connection reads into it next.
 */
public final class RdmaReadBuffer implements LeasedBuffer {
    private final RdmaReadBufferPool pool;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment segment;
    private MemoryRegion region;
    private RdmaConnection registeredWith;
    boolean inUse;

    RdmaReadBuffer(final RdmaReadBufferPool pool, final int bytes) {
        this.pool = pool;
        this.segment = arena.allocate(bytes, 4096);
    }

    /** The whole buffer; what a READ brought lies at the offsets the transport reported. */
    @Override
    public MemorySegment segment() {
        return segment;
    }

    /** The region to READ into over {@code connection}, registering the buffer with it on first use. */
    MemoryRegion regionFor(final RdmaConnection connection) {
        if (registeredWith != connection || region == null || region.isClosed()) {
            region = connection.register(segment, AccessFlags.LOCAL_WRITE);
            registeredWith = connection;
        }
        return region;
    }

    /** Gives the buffer back: the next READ may overwrite it. */
    @Override
    public void release() {
        pool.release(this);
    }

    void free() {
        arena.close();
    }
}
