package io.isthmus.broker.shm;

import io.isthmus.broker.log.SegmentLease;
import io.isthmus.broker.partition.Partition;
import io.isthmus.broker.slots.PartitionSlots;

/**
 * Read access of one shared-memory session to one partition: the segment it maps (a lease keeps the segment's file
 * where the answer said until the grant moves on or goes) and the slot in the session's range that describes it.
 * Guarded by the {@link ShmControlPlane}'s monitor.
 */
final class ShmConsumeGrant {
    final Partition partition;
    final PartitionSlots slots;
    final int slotIndex;
    final long slotOffset;
    /** The leader epoch the grant was made in; it ends with that epoch (see {@code LeaderAccess}). */
    final int leaderEpoch;

    SegmentLease lease;

    ShmConsumeGrant(
            final Partition partition,
            final int leaderEpoch,
            final PartitionSlots slots,
            final int slotIndex,
            final long slotOffset,
            final SegmentLease lease) {
        this.partition = partition;
        this.leaderEpoch = leaderEpoch;
        this.slots = slots;
        this.slotIndex = slotIndex;
        this.slotOffset = slotOffset;
        this.lease = lease;
    }

    @Override
    public String toString() {
        return "ShmConsumeGrant{partition=" + partition.topicPartition() + ", leaderEpoch=" + leaderEpoch
                + ", slotIndex=" + slotIndex + ", segment=" + lease.segment() + '}';
    }
}
