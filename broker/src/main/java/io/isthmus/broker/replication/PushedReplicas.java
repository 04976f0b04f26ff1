package io.isthmus.broker.replication;

import io.isthmus.broker.partition.Partition;

/**
 * The leader's side of push replication, as its Fetch handler needs it: whether a follower takes a partition's
 * batches pushed over RDMA now. Its replica Fetch for that partition is then answered without records (the push
 * carries them) and does not count as its progress (the push's acks do); the answer still brings it the high
 * watermark, the log start and any divergence.
 */
@FunctionalInterface
public interface PushedReplicas {
    /** Nothing is pushed: a single broker, or push replication off. */
    PushedReplicas NONE = (replicaId, partition) -> false;

    /** Whether follower {@code replicaId} receives {@code partition}'s batches by push now. */
    boolean pushes(int replicaId, Partition partition);
}
