package io.isthmus.broker.rdma;

import io.isthmus.broker.log.LogSegment;
import io.isthmus.broker.log.SegmentLease;
import io.isthmus.ffi.verbs.MemoryRegion;
import java.lang.foreign.MemorySegment;

/**
 * A log segment's mapping registered with the NIC for remote READ, held by a lease so the mapping
 * outlives the registration, and counted by the grants that use it. Owned by {@link SegmentRegistrations}.
 */
public final class SegmentRegistration {
    private final SegmentLease lease;
    private final MemoryRegion region;
    private int users;

    SegmentRegistration(final SegmentLease lease, final MemoryRegion region) {
        this.lease = lease;
        this.region = region;
    }

    public LogSegment segment() {
        return lease.segment();
    }

    /** The whole mapping, valid while registered. */
    public MemorySegment memory() {
        return region.segment();
    }

    public long address() {
        return region.address();
    }

    public int rkey() {
        return region.rkey();
    }

    public int users() {
        return users;
    }

    void retain() {
        users++;
    }

    /** Returns true when the last user is gone. */
    boolean releaseOne() {
        return --users == 0;
    }

    void deregister() {
        region.close();
        lease.close();
    }

    @Override
    public String toString() {
        return "SegmentRegistration{segmentId=" + segment().id() + ", baseOffset="
                + segment().baseOffset()
                + ", users=" + users + ", rkey=0x" + Integer.toHexString(region.rkey())
                + '}';
    }
}
