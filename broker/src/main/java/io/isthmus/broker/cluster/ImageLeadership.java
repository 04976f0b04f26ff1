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
        final Optional<TopicImage> topic = membership.image().topic(partition.topic());
        // A topic deleted and created again under its name has another id: this broker's partition of the old one
        // takes nothing more, even before the hosting thread has replaced it.
        if (topic.isEmpty()
                || !topic.get().id().equals(local.topicId())
                || partition.partition() < 0
                || partition.partition() >= topic.get().partitions().size()) {
            return Errors.UNKNOWN_TOPIC_OR_PARTITION;
        }
        final PartitionState state = topic.get().partition(partition.partition());
        if (currentLeaderEpoch >= 0 && currentLeaderEpoch < state.leaderEpoch()) {
            return Errors.FENCED_LEADER_EPOCH;
        }
        if (currentLeaderEpoch > state.leaderEpoch()) {
            return Errors.UNKNOWN_LEADER_EPOCH;
        }
        if (state.leader() != membership.nodeId() || !membership.isActive()) {
            return Errors.NOT_LEADER_OR_FOLLOWER;
        }
        return Errors.NONE;
    }

    @Override
    public boolean heldElsewhere(final TopicPartition partition) {
        return membership
                .image()
                .topic(partition.topic())
                .filter(t -> partition.partition() >= 0
                        && partition.partition() < t.partitions().size())
                .filter(t -> !t.partition(partition.partition()).replicas().contains(membership.nodeId()))
                .isPresent();
    }
}
