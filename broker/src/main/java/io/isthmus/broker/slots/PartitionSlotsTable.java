package io.isthmus.broker.slots;

import io.isthmus.broker.partition.Partition;
import java.util.HashMap;
import java.util.Map;

/**
 * One datapath's {@link PartitionSlots}, a partition's while some reader of that datapath holds a slot of it: each is
 * the partition's append observer (republishing its slots after every commit) from its first slot until its last one
 * is vacated. Over the datapath's slot memory (the RDMA-registered region, the shared-memory slot file).
 *
 * <p>Not thread-safe: each datapath's control plane confines it (the RDMA datapath thread, the shared-memory control
 * plane's monitor).
 */
public final class PartitionSlotsTable {
    private final MetadataSlotRegion region;
    private final AbortedArrayMemory abortedMemory;
    private final Map<Partition, PartitionSlots> slots = new HashMap<>();

    /** @param abortedMemory where the partitions' aborted-transaction arrays live */
    public PartitionSlotsTable(final MetadataSlotRegion region, final AbortedArrayMemory abortedMemory) {
        this.region = region;
        this.abortedMemory = abortedMemory;
    }

    /** The partition's slots, created and registered as its append observer on first use. */
    public PartitionSlots slotsFor(final Partition partition) {
        PartitionSlots partitionSlots = slots.get(partition);
        if (partitionSlots == null) {
            partitionSlots = new PartitionSlots(
                    partition.topicPartition().toString(),
                    region.memory(),
                    partition::readablePosition,
                    partition::highWatermark,
                    partition::lastStableOffset,
                    new AbortedTransactionArray(partition.log(), abortedMemory));
            slots.put(partition, partitionSlots);
            partition.addAppendObserver(partitionSlots);
        }
        return partitionSlots;
    }

    /** The partition's slots if a reader holds one, else null. */
    public PartitionSlots existing(final Partition partition) {
        return slots.get(partition);
    }

    /**
     * A reader gives its slot back: {@code revoked}, the slot says REVOKED (the reader must ask again: its segment was
     * deleted, its principal lost access); otherwise it is zeroed.
     */
    public void vacate(final PartitionSlots partitionSlots, final long slotOffset, final boolean revoked) {
        if (revoked) {
            partitionSlots.revoke(slotOffset);
        } else {
            partitionSlots.unassign(slotOffset);
        }
    }

    /**
     * Stops observing the partition and frees its aborted-transaction arrays once no slot of it is left (call after
     * whatever refers to those arrays, such as their RDMA registrations, is gone).
     */
    public void closeIfUnused(final Partition partition, final PartitionSlots partitionSlots) {
        if (partitionSlots.isEmpty()) {
            partition.removeAppendObserver(partitionSlots);
            slots.remove(partition, partitionSlots);
            partitionSlots.close();
        }
    }

    /** Stops observing every partition and frees the arrays (the datapath is closing, its readers are gone). */
    public void closeAll() {
        slots.forEach((partition, partitionSlots) -> {
            partition.removeAppendObserver(partitionSlots);
            partitionSlots.close();
        });
        slots.clear();
    }
}
