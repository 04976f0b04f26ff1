package io.isthmus.broker.rdma;

import io.isthmus.broker.partition.Partition;
import io.isthmus.broker.slots.PartitionSlots;
import io.isthmus.ffi.verbs.AccessFlags;
import io.isthmus.ffi.verbs.MemoryRegion;
import io.isthmus.ffi.verbs.ProtectionDomain;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Read access of one connection to one partition: the segment it reads, the slot describing it, and its registration
 * of the partition's aborted-transaction array. Every registration is in the connection's own protection domain, so
 * its rkeys work on its queue pair only and end with the grant. Confined to the datapath thread.
 */
final class ConsumeGrant {
    final Partition partition;
    final PartitionSlots slots;
    final int slotIndex;
    final long slotOffset;
    SegmentRegistration registration;
    /** The leader epoch the grant was made (or last moved to a segment) in: it holds while this broker leads in it. */
    int leaderEpoch;
    /** Registrations of the arrays this grant was told about, the current one last; kept until the grant goes. */
    private final List<MemoryRegion> abortedRegions = new ArrayList<>(1);

    ConsumeGrant(
            final Partition partition,
            final PartitionSlots slots,
            final int slotIndex,
            final long slotOffset,
            final SegmentRegistration registration,
            final int leaderEpoch) {
        this.partition = partition;
        this.slots = slots;
        this.slotIndex = slotIndex;
        this.slotOffset = slotOffset;
        this.registration = registration;
        this.leaderEpoch = leaderEpoch;
    }

    /**
     * The registration, in {@code pd}, of the aborted-transaction array {@code memory}: the one already made if the
     * array did not change, a new one if it grew. A replaced array's registration is kept until the grant goes: the
     * consumer may still be READing it.
     */
    MemoryRegion abortedRegion(final ProtectionDomain pd, final MemorySegment memory) {
        final MemoryRegion current = abortedRegions.isEmpty() ? null : abortedRegions.getLast();
        if (current != null && current.address() == memory.address() && current.length() == memory.byteSize()) {
            return current;
        }
        final MemoryRegion registered = pd.registerMemory(memory, AccessFlags.REMOTE_READ);
        abortedRegions.add(registered);
        return registered;
    }

    /** Deregisters the aborted-transaction arrays: their rkeys stop working. */
    void releaseAbortedRegions() {
        abortedRegions.forEach(MemoryRegion::close);
        abortedRegions.clear();
    }
}
