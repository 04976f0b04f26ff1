package io.isthmus.metadata.controller;

import io.isthmus.metadata.image.PartitionState;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * How a partition's leader and ISR change when a broker is fenced or unfenced.
 *
 * <p>Unclean election is never done: a leader comes only from the ISR. When the last in-sync replica is fenced it
 * stays the whole ISR and the partition has no leader until that replica returns, because any other replica may
 * lack acknowledged records (Kafka's {@code unclean.leader.election.enable=false}).
 */
final class PartitionLeadership {
    private PartitionLeadership() {}

    /** The partition after {@code broker} was fenced; {@code unfenced} says which other brokers may lead. */
    static PartitionState afterFence(PartitionState p, int broker, IntPredicate unfenced) {
        if (!p.isr().contains(broker)) {
            return p;
        }
        List<Integer> isr = p.isr();
        if (isr.size() > 1) {
            isr = new ArrayList<>(isr);
            isr.remove(Integer.valueOf(broker));
        }
        if (p.leader() != broker) {
            return isr.equals(p.isr()) ? p : p.withIsr(isr);
        }
        return p.withLeader(electFrom(p.replicas(), isr, id -> id != broker && unfenced.test(id)), isr);
    }

    /** The partition after {@code broker} was unfenced: it leads a leaderless partition whose ISR holds it. */
    static PartitionState afterUnfence(PartitionState p, int broker) {
        if (p.hasLeader() || !p.isr().contains(broker)) {
            return p;
        }
        return p.withLeader(broker, p.isr());
    }

    /** The first replica, in preference order, that is in the ISR and may lead; or no leader. */
    static int electFrom(List<Integer> replicas, List<Integer> isr, IntPredicate mayLead) {
        for (int replica : replicas) {
            if (isr.contains(replica) && mayLead.test(replica)) {
                return replica;
            }
        }
        return PartitionState.NO_LEADER;
    }
}
