package io.isthmus.client.producer;

/**
 * One topic's partition queues and its sticky partition, found with one map lookup per record.
 *
 * <p>The array is never changed in place: a topic that gains partitions gets a new {@code TopicQueues} that keeps the
 * sticky position, so a thread that picked a queue from the old one still finds it there.
 */
final class TopicQueues {
    final PartitionQueue[] partitions;

    /**
     * Advances each time a batch of records without key is sealed full (Kafka's uniform sticky partitioning, by batch
     * rather than by byte count). Racy on purpose: two threads sealing at once may advance it once, which only
     * changes which partition the next batch goes to.
     */
    private int sticky;

    TopicQueues(final PartitionQueue[] partitions, final int sticky) {
        this.partitions = partitions;
        this.sticky = sticky;
    }

    /** The partition for a record without key. */
    int stickyPartition() {
        return Math.floorMod(sticky, partitions.length);
    }

    void advanceSticky() {
        sticky++;
    }

    int sticky() {
        return sticky;
    }
}
