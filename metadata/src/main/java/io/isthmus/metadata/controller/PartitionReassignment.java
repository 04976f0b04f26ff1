package io.isthmus.metadata.controller;

import io.isthmus.metadata.image.PartitionState;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * How a partition moves to new replicas (KIP-455): the target replicas join first, and the old ones leave only once
 * every target replica is in sync, so the partition never has fewer in-sync copies than it started with.
 *
 * <p>While a reassignment is in progress the replicas are the target followed by the replicas being removed; the
 * partition leader adds the new replicas to the ISR (through {@code AlterPartition}) as they catch up, and the
 * controller completes the move when the ISR holds the whole target: the removed replicas leave the replicas and
 * the ISR, and a leader outside the target hands over to the first in-sync target replica.
 */
final class PartitionReassignment {
    private PartitionReassignment() {}

    /**
     * Starts moving {@code p} to {@code target}, replacing any reassignment in progress, and completes it at once if
     * the target is already in sync.
     */
    static PartitionState start(PartitionState p, List<Integer> target, IntPredicate unfenced) {
        List<Integer> original = p.originalReplicas();
        List<Integer> adding =
                target.stream().filter(r -> !original.contains(r)).toList();
        List<Integer> removing =
                original.stream().filter(r -> !target.contains(r)).toList();
        List<Integer> merged = new ArrayList<>(target);
        merged.addAll(removing);
        // The ISR may hold replicas a replaced reassignment was adding: only those still wanted stay.
        List<Integer> isr = p.isr().stream().filter(merged::contains).toList();
        if (isr.isEmpty()) {
            throw new IllegalArgumentException("moving replicas " + p.replicas() + " to " + target
                    + " would leave none of in-sync replicas " + p.isr());
        }
        int leader = isr.contains(p.leader()) ? p.leader() : PartitionLeadership.electFrom(merged, isr, unfenced);
        PartitionState started = new PartitionState(
                merged, isr, leader, nextLeaderEpoch(p, merged, leader), p.partitionEpoch() + 1, adding, removing);
        return maybeComplete(started, unfenced);
    }

    /** Stops the reassignment in progress, back to the replicas it started from. */
    static PartitionState cancel(PartitionState p, IntPredicate unfenced) {
        return start(p, p.originalReplicas(), unfenced);
    }

    /** Completes the reassignment in progress if every target replica is in sync; otherwise {@code p}. */
    static PartitionState maybeComplete(PartitionState p, IntPredicate unfenced) {
        List<Integer> target = p.targetReplicas();
        if (!p.isReassigning() || !p.isr().containsAll(target)) {
            return p;
        }
        List<Integer> isr = p.isr().stream().filter(target::contains).toList();
        int leader = target.contains(p.leader()) ? p.leader() : PartitionLeadership.electFrom(target, isr, unfenced);
        return new PartitionState(target, isr, leader, nextLeaderEpoch(p, target, leader), p.partitionEpoch() + 1);
    }

    /**
     * A new leader epoch whenever the leader changes or a replica leaves, as Kafka does: a removed replica must see
     * an epoch it was not part of, so that nothing it still sends under the old one is taken.
     */
    private static int nextLeaderEpoch(PartitionState p, List<Integer> replicas, int leader) {
        return leader != p.leader() || !replicas.containsAll(p.replicas()) ? p.leaderEpoch() + 1 : p.leaderEpoch();
    }
}
