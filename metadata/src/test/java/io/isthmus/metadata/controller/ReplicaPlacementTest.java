package io.isthmus.metadata.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ReplicaPlacementTest {
    private static final List<Integer> BROKERS = List.of(1, 2, 3, 4, 5);

    @Test
    void everyBrokerLeadsAnEqualShareAndHoldsAnEqualShareOfReplicas() {
        for (long seed = 0; seed < 50; seed++) {
            List<List<Integer>> placement = ReplicaPlacement.place(BROKERS, 20, 3, seed);
            Map<Integer, Integer> leaders = new HashMap<>();
            Map<Integer, Integer> replicas = new HashMap<>();
            for (List<Integer> p : placement) {
                assertThat(p).hasSize(3).doesNotHaveDuplicates();
                leaders.merge(p.getFirst(), 1, Integer::sum);
                p.forEach(b -> replicas.merge(b, 1, Integer::sum));
            }
            assertThat(leaders.values()).as("seed %d", seed).containsOnly(4);
            assertThat(replicas.values()).as("seed %d", seed).containsOnly(12);
        }
    }

    @Test
    void partitionsThatShareALeaderRarelyShareTheirFollowers() {
        List<List<Integer>> placement = ReplicaPlacement.place(BROKERS, 20, 2, 3);
        Set<List<Integer>> distinct = new HashSet<>(placement);
        assertThat(distinct.size()).isGreaterThanOrEqualTo(16);
    }

    @Test
    void theSameSeedPlacesTheSameWayAndAnotherSeedStartsElsewhere() {
        assertThat(ReplicaPlacement.place(BROKERS, 7, 3, 11)).isEqualTo(ReplicaPlacement.place(BROKERS, 7, 3, 11));
        assertThat(ReplicaPlacement.place(BROKERS, 1, 3, 1).getFirst().getFirst())
                .isNotEqualTo(
                        ReplicaPlacement.place(BROKERS, 1, 3, 2).getFirst().getFirst());
    }

    @Test
    void moreReplicasThanBrokersIsRefused() {
        assertThatThrownBy(() -> ReplicaPlacement.place(BROKERS, 1, 6, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("replication factor 6");
    }
}
