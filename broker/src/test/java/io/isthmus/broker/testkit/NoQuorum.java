package io.isthmus.broker.testkit;

import io.isthmus.broker.partition.IsrChanges;
import io.isthmus.broker.partition.Partition;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** ISR changes a leader asks for that nobody answers, and no broker may join an ISR: the ISR is what a test sets. */
public final class NoQuorum implements IsrChanges {
    public static final IsrChanges ISR_CHANGES = new NoQuorum();

    private NoQuorum() {}

    @Override
    public CompletableFuture<Answer> alter(
            final Partition partition, final int leaderEpoch, final int partitionEpoch, final List<Integer> isr) {
        return new CompletableFuture<>();
    }

    @Override
    public boolean mayJoin(final int brokerId) {
        return false;
    }
}
