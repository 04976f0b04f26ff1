package io.isthmus.broker.replication;

import io.isthmus.broker.partition.Partition;

/**
 * The follower's side of push replication: whether this broker takes batches its leader pushes over RDMA into one of
 * its replicas. Only while it follows that leader in that leader epoch and the replica is in line with the leader's
 * log (a fetch in the epoch was answered without a divergence), so that a pushed batch at its log end continues the
 * leader's history. A batch is appended only at the replica's log end offset ({@link Partition#appendAsFollower}).
 */
@FunctionalInterface
public interface PushAcceptance {
    /** A single broker follows nothing. */
    PushAcceptance NONE = (partition, leaderId, leaderEpoch) -> false;

    /** Whether broker {@code leaderId}, leading {@code partition} in {@code leaderEpoch}, may push to this replica now. */
    boolean accepts(Partition partition, int leaderId, int leaderEpoch);
}
