package io.isthmus.metadata.image;

import java.util.List;

/**
 * One partition's replica set and leadership, as Kafka's {@code PartitionRecord} holds it.
 *
 * <p>Two epochs, as in Kafka: the <em>leader epoch</em> grows with every change of leader and fences requests from a
 * deposed leader ({@code FENCED_LEADER_EPOCH}); the <em>partition epoch</em> grows with every change at all (leader,
 * ISR or replicas), so a leader's {@code AlterPartition} built on an older state is refused
 * ({@code INVALID_UPDATE_VERSION}).
 *
 * <p>During a reassignment (KIP-455) {@code replicas} holds the target replicas followed by those being removed;
 * {@code addingReplicas} are target replicas that were not replicas before, {@code removingReplicas} are replicas
 * not in the target. The reassignment completes when every target replica is in sync.
 *
 * @param replicas the assigned replicas, preferred leader first
 * @param isr the in-sync replicas; never empty: when the last in-sync replica is fenced it stays here (and leads
 *     nothing) so that only it can be elected again, never an out-of-sync replica
 * @param leader the leader's broker id, or {@link #NO_LEADER}
 * @param leaderEpoch grows with every change of leader
 * @param partitionEpoch grows with every change of this state
 * @param addingReplicas replicas a reassignment adds (empty when none is in progress)
 * @param removingReplicas replicas a reassignment removes (empty when none is in progress)
 */
public record PartitionState(
        List<Integer> replicas,
        List<Integer> isr,
        int leader,
        int leaderEpoch,
        int partitionEpoch,
        List<Integer> addingReplicas,
        List<Integer> removingReplicas) {
    /** Kafka's leader id for a partition that has none. */
    public static final int NO_LEADER = -1;

    public PartitionState {
        replicas = List.copyOf(replicas);
        isr = List.copyOf(isr);
        addingReplicas = List.copyOf(addingReplicas);
        removingReplicas = List.copyOf(removingReplicas);
        if (replicas.isEmpty() || isr.isEmpty()) {
            throw new IllegalArgumentException(
                    "a partition needs replicas and an ISR, got replicas " + replicas + " and ISR " + isr);
        }
        if (!replicas.containsAll(isr)) {
            throw new IllegalArgumentException("ISR " + isr + " names a broker that is not among replicas " + replicas);
        }
        if (leader != NO_LEADER && !isr.contains(leader)) {
            throw new IllegalArgumentException("leader " + leader + " is not in ISR " + isr);
        }
        if (!replicas.containsAll(addingReplicas) || !replicas.containsAll(removingReplicas)) {
            throw new IllegalArgumentException("adding " + addingReplicas + " and removing " + removingReplicas
                    + " must be among replicas " + replicas);
        }
    }

    /** A partition with no reassignment in progress. */
    public PartitionState(List<Integer> replicas, List<Integer> isr, int leader, int leaderEpoch, int partitionEpoch) {
        this(replicas, isr, leader, leaderEpoch, partitionEpoch, List.of(), List.of());
    }

    public boolean hasLeader() {
        return leader != NO_LEADER;
    }

    public boolean isReassigning() {
        return !addingReplicas.isEmpty() || !removingReplicas.isEmpty();
    }

    /** The replicas a reassignment in progress leads to, or the replicas when there is none. */
    public List<Integer> targetReplicas() {
        return replicas.stream().filter(r -> !removingReplicas.contains(r)).toList();
    }

    /** The replicas before the reassignment in progress, or the replicas when there is none. */
    public List<Integer> originalReplicas() {
        return replicas.stream().filter(r -> !addingReplicas.contains(r)).toList();
    }

    /** This partition with another ISR, the leader unchanged. */
    public PartitionState withIsr(List<Integer> newIsr) {
        return new PartitionState(
                replicas, newIsr, leader, leaderEpoch, partitionEpoch + 1, addingReplicas, removingReplicas);
    }

    /** This partition with another leader (or {@link #NO_LEADER}) and ISR: a new leader epoch. */
    public PartitionState withLeader(int newLeader, List<Integer> newIsr) {
        return new PartitionState(
                replicas, newIsr, newLeader, leaderEpoch + 1, partitionEpoch + 1, addingReplicas, removingReplicas);
    }
}
