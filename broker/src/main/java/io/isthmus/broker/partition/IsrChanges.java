package io.isthmus.broker.partition;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.Errors;

/**
 * Where a partition's leader asks for a new ISR (Kafka's AlterPartition): the cluster's metadata quorum, which checks
 * the leader's epoch and the partition epoch the change is based on and answers with the state it agreed to.
 */
public interface IsrChanges {
    /** What the quorum answered: the ISR and partition epoch now in force, or why it refused. */
    record Answer(Errors error, List<Integer> isr, int partitionEpoch) {
        public Answer {
            isr = List.copyOf(isr);
        }
    }

    /**
     * Asks for {@code isr} as {@code partition}'s ISR, based on {@code partitionEpoch}, by its leader in {@code
     * leaderEpoch}.
     */
    CompletableFuture<Answer> alter(Partition partition, int leaderEpoch, int partitionEpoch, List<Integer> isr);

    /**
     * Whether the quorum would take {@code brokerId} into an ISR now (registered, not fenced, not shutting down): a
     * leader asks for no expansion it would refuse, so a follower that catches up before its broker is unfenced does
     * not send one refused command per fetch.
     */
    boolean mayJoin(int brokerId);
}
