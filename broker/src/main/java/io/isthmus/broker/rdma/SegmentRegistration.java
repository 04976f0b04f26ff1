package io.isthmus.broker.rdma;

import io.isthmus.broker.log.LogSegment;
import io.isthmus.broker.log.SegmentLease;
import io.isthmus.ffi.verbs.MemoryRegion;
import io.isthmus.protocol.control.ControlErrorCodes;
import io.isthmus.protocol.control.ProduceAccessResponse;
import java.lang.foreign.MemorySegment;

/**
 * A log segment's mapping registered with the NIC for one kind of remote access, held by a lease so the mapping
 * outlives the registration, and counted by the grants that use it. Owned by {@link SegmentRegistrations}.
 */
public final class SegmentRegistration {
    private final SegmentLease lease;
    private final MemoryRegion region;
    private final boolean writable;
    private int users;

    SegmentRegistration(final SegmentLease lease, final MemoryRegion region, final boolean writable) {
        this.lease = lease;
        this.region = region;
        this.writable = writable;
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

    /**
     * Fills what every produce grant on this registration answers, exclusive or shared: the segment, its rkey and
     * address, where writing starts and how far it may go. The caller adds what its kind of grant needs.
     */
    ProduceAccessResponse answerGrant(final ProduceAccessResponse response, final long tailPosition) {
        final LogSegment segment = segment();
        return response.errorCode(ControlErrorCodes.NONE)
                .segmentId(segment.id())
                .rkey(rkey())
                .segmentAddress(address())
                .tailPosition(tailPosition)
                .capacity(segment.capacity())
                .segmentBaseOffset(segment.baseOffset());
    }

    public int rkey() {
        return region.rkey();
    }

    public boolean writable() {
        return writable;
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
                + ", writable=" + writable + ", users=" + users + ", rkey=0x" + Integer.toHexString(region.rkey())
                + '}';
    }
}
