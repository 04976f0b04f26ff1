package io.isthmus.metadata.controller;

import java.util.ArrayList;
import java.util.List;

/**
 * Where a new topic's replicas go: Kafka's rack-unaware assignment, with the start and shift drawn from a seed
 * instead of a random generator.
 *
 * <p>Kafka spreads the first replica of consecutive partitions over consecutive brokers (so leaders spread) and
 * places followers at a shift from the first, bumping the shift after each round of brokers (so two partitions that
 * share a leader rarely share followers). The quorum must place identically on every voter, so the start and shift
 * come from the seed (the command's log index): deterministic, yet different topics start at different brokers.
 */
final class ReplicaPlacement {
    private ReplicaPlacement() {}

    /**
     * @param brokers the candidate broker ids, ascending
     * @param partitions how many partitions
     * @param replicationFactor replicas per partition, at most {@code brokers.size()}
     * @param seed any number; equal seeds give equal placements
     * @return each partition's replicas, preferred leader first
     */
    static List<List<Integer>> place(List<Integer> brokers, int partitions, int replicationFactor, long seed) {
        int n = brokers.size();
        if (replicationFactor < 1 || replicationFactor > n) {
            throw new IllegalArgumentException("replication factor " + replicationFactor + " for " + n + " brokers");
        }
        int start = (int) Math.floorMod(seed, (long) n);
        int shift = (int) Math.floorMod(seed / n, (long) n);
        List<List<Integer>> placement = new ArrayList<>(partitions);
        for (int p = 0; p < partitions; p++) {
            if (p > 0 && p % n == 0) {
                shift++;
            }
            int first = (p + start) % n;
            List<Integer> replicas = new ArrayList<>(replicationFactor);
            replicas.add(brokers.get(first));
            for (int j = 0; j < replicationFactor - 1; j++) {
                replicas.add(brokers.get((first + 1 + (shift + j) % (n - 1)) % n));
            }
            placement.add(List.copyOf(replicas));
        }
        return placement;
    }
}
