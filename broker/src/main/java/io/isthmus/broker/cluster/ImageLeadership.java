package io.isthmus.broker.cluster;

import io.isthmus.broker.partition.Partition;
import io.isthmus.broker.partition.PartitionLeadership;
import io.isthmus.metadata.image.PartitionState;
import io.isthmus.metadata.image.TopicImage;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * A broker of a cluster leads a partition when the newest metadata its voter applied names it leader and its own
 * session with the quorum is alive. The second condition is what keeps a broker that was paused or cut off from acting
 * as a stale leader: it stops serving when its last acknowledged heartbeat is older than its session, and the quorum
 * moves its leaderships only after that session has run out on the quorum's side.
 */
final class ImageLeadership implements PartitionLeadership {
    private final ClusterMembership membership;

    ImageLeadership(final ClusterMembership membership) {
        this.membership = membership;
    }

    @Override
    public Errors check(final Partition local, final int currentLeaderEpoch) {
        final TopicPartition partition = local.topicPartition();
        // A topic deleted and created again under its name has another id: this broker's partition of the old one
        // takes nothing more, even before the hosting thread has replaced it.
        final Optional<PartitionState> found = stateOf(
                membership.image().topic(partition.topic()).filter(t -> t.id().equals(local.topicId())),
                partition.partition());
        if (found.isEmpty()) {
            return Errors.UNKNOWN_TOPIC_OR_PARTITION;
        }
        final PartitionState state = found.get();
        if (currentLeaderEpoch >= 0 && currentLeaderEpoch < state.leaderEpoch()) {
            return Errors.FENCED_LEADER_EPOCH;
        }
        if (currentLeaderEpoch > state.leaderEpoch()) {
            return Errors.UNKNOWN_LEADER_EPOCH;
        }
        if (state.leader() != membership.nodeId() || !membership.isActive()) {
            return Errors.NOT_LEADER_OR_FOLLOWER;
        }
        if (local.leaderEpoch() != state.leaderEpoch()) {
            // Led here in an epoch the hosting thread has not handed the partition yet: an append now would carry the
            // previous epoch. The client retries in a moment.
            return Errors.NOT_LEADER_OR_FOLLOWER;
        }
        return Errors.NONE;
    }

    @Override
    public boolean heldElsewhere(final TopicPartition partition) {
        return stateOf(membership.image().topic(partition.topic()), partition.partition())
                .filter(state -> !state.replicas().contains(membership.nodeId()))
                .isPresent();
    }

    /** Partition {@code index} of {@code topic}, if both exist. */
    private static Optional<PartitionState> stateOf(final Optional<TopicImage> topic, final int index) {
        return topic.filter(t -> index >= 0 && index < t.partitions().size()).map(t -> t.partition(index));
    }
}
