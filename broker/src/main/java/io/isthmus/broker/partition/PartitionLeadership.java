package io.isthmus.broker.partition;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * Whether this broker may serve a partition as its leader now: take writes, answer reads and offsets. A single broker
 * leads every partition it has; a broker of a cluster leads what the cluster's metadata says it leads, and only while
 * its session with the metadata quorum is alive, so a broker cut off from the quorum (paused, partitioned) stops
 * acting as leader on its own before the quorum hands its partitions to another.
 */
public interface PartitionLeadership {
    /** A single broker: every partition it has is its own, and there is nowhere else a partition could be. */
    PartitionLeadership SOLE_BROKER = new PartitionLeadership() {
        @Override
        public Errors check(final Partition partition, final int currentLeaderEpoch) {
            return Errors.NONE;
        }

        @Override
        public boolean heldElsewhere(final TopicPartition partition) {
            return false;
        }
    };

    /**
     * {@link Errors#NONE} if this broker leads {@code partition} now, else the error to answer the client with:
     * NOT_LEADER_OR_FOLLOWER (it should refresh its metadata and go to the leader), FENCED_LEADER_EPOCH or
     * UNKNOWN_LEADER_EPOCH (its idea of the leader epoch is older or newer than this broker's), or
     * UNKNOWN_TOPIC_OR_PARTITION (the topic is gone, or this local partition belongs to a topic of the same name that
     * was deleted and created again).
     *
     * @param partition the partition as this broker holds it
     * @param currentLeaderEpoch the leader epoch the client knows (KIP-320), or -1 for none
     */
    Errors check(Partition partition, int currentLeaderEpoch);

    /**
     * Whether {@code partition}, which this broker does not hold, exists on other brokers: a client that sent a request
     * for it here is answered NOT_LEADER_OR_FOLLOWER (go to the leader), not UNKNOWN_TOPIC_OR_PARTITION.
     */
    boolean heldElsewhere(TopicPartition partition);
}
