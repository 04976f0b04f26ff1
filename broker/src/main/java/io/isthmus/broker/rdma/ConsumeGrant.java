package io.isthmus.broker.rdma;

import io.isthmus.broker.partition.Partition;

/** Read access of one connection to one partition: the segment it reads and the slot describing it. */
final class ConsumeGrant {
    final Partition partition;
    final PartitionSlots slots;
    final int slotIndex;
    final long slotOffset;
    SegmentRegistration registration;

    ConsumeGrant(
            final Partition partition,
            final PartitionSlots slots,
            final int slotIndex,
            final long slotOffset,
            final SegmentRegistration registration) {
        this.partition = partition;
        this.slots = slots;
        this.slotIndex = slotIndex;
        this.slotOffset = slotOffset;
        this.registration = registration;
    }
}
