package io.isthmus.benchmarks.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class BenchPlanTest {
    @Test
    void transactionsIsAGroupOfItsOwn() {
        assertThat(BenchPlan.GROUPS).contains(BenchPlan.TRANSACTIONS);
        assertThat(BenchPlan.of(true, List.of(BenchPlan.PRODUCE)).cases())
                .noneMatch(c -> c.group().equals(BenchPlan.TRANSACTIONS));
        assertThat(BenchPlan.of(true, List.of()).cases())
                .anyMatch(c -> c.group().equals(BenchPlan.TRANSACTIONS));
        assertThatThrownBy(() -> BenchPlan.of(true, List.of("transaction")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("transactions");
    }

    @Test
    void quickPlanProducesAndConsumesTransactionallyOnOnePartition() {
        final List<BenchCase> cases =
                BenchPlan.of(true, List.of(BenchPlan.TRANSACTIONS)).cases();
        assertThat(cases).extracting(BenchCase::id).containsExactly("txn-produce-100B-p1", "txn-consume-100B-p1");

        final BenchCase produce = cases.get(0);
        assertThat(produce.workload()).isEqualTo("produce");
        assertThat(produce.preloadRecords()).isZero();
        assertThat(produce.clientArgs())
                .containsSubsequence("--acks", "all")
                .containsSubsequence("--transaction-records", "1000")
                .containsSubsequence("--records", "200000")
                .doesNotContain("--isolation");
        assertThat(produce.params()).containsEntry("transaction_records", 1000).containsEntry("acks", "all");

        final BenchCase consume = cases.get(1);
        assertThat(consume.workload()).isEqualTo("consume");
        assertThat(consume.preloadRecords()).isEqualTo(200_000);
        // The preload runs the produce workload with these arguments: transactional too.
        assertThat(consume.clientArgs())
                .containsSubsequence("--acks", "all")
                .containsSubsequence("--transaction-records", "1000")
                .containsSubsequence("--isolation", "read_committed")
                .doesNotContain("--records");
        assertThat(consume.params()).containsEntry("isolation", "read_committed");
    }

    @Test
    void produceAndConsumeCasesAlsoRunTheIsthmusClientOverSharedMemory() {
        for (final boolean quick : new boolean[] {true, false}) {
            for (final BenchCase c : BenchPlan.of(quick, List.of(BenchPlan.CONSUME, BenchPlan.PRODUCE))
                    .cases()) {
                assertThat(c.pairings())
                        .as(c.id())
                        .contains(Pairing.ISTHMUS_SHM_STACK, Pairing.ISTHMUS_STACK, Pairing.KAFKA_STACK);
                if (c.group().equals(BenchPlan.CONSUME)) {
                    assertThat(c.preloadRecords())
                            .as("consume reads a preloaded topic")
                            .isPositive();
                }
            }
        }
    }

    @Test
    void fullPlanAddsFourPartitionProduce() {
        assertThat(BenchPlan.of(false, List.of(BenchPlan.TRANSACTIONS)).cases())
                .extracting(BenchCase::id)
                .containsExactly("txn-produce-100B-p1", "txn-produce-100B-p4", "txn-consume-100B-p1");
    }

    @Test
    void transactionsRunBothStacksAndKafkaClientsOnTheIsthmusBroker() {
        for (final BenchCase c :
                BenchPlan.of(false, List.of(BenchPlan.TRANSACTIONS)).cases()) {
            assertThat(c.pairings())
                    .containsExactly(Pairing.ISTHMUS_STACK, Pairing.KAFKA_CLIENTS_ON_ISTHMUS, Pairing.KAFKA_STACK);
        }
    }

    @Test
    void sparkRunsOneQueryOverTenMillionRecordsWithBothSourcesOnTheIsthmusBroker() {
        final List<BenchCase> full =
                BenchPlan.of(false, List.of(BenchPlan.SPARK)).cases();
        assertThat(full).extracting(BenchCase::id).containsExactly("spark-100B-p1");
        final BenchCase spark = full.get(0);
        assertThat(spark.workload()).isEqualTo("spark-query");
        assertThat(spark.preloadRecords()).isEqualTo(10_000_000);
        assertThat(spark.pairings())
                .contains(Pairing.ISTHMUS_STACK, Pairing.KAFKA_CLIENTS_ON_ISTHMUS, Pairing.KAFKA_STACK);
        assertThat(BenchPlan.of(true, List.of(BenchPlan.SPARK)).cases().get(0).preloadRecords())
                .isEqualTo(200_000);
    }

    @Test
    void replicatedCasesRunBothStacksOnThreeBrokersWithAcksAllAndEveryOtherCaseOnOne() {
        final List<BenchCase> replicated =
                BenchPlan.of(true, List.of(BenchPlan.REPLICATED)).cases();
        assertThat(replicated)
                .extracting(BenchCase::id)
                .containsExactly("replicated-produce-1KiB-p3-acksall", "replicated-produce-latency-100B-acksall");
        for (final BenchCase benchCase : replicated) {
            assertThat(benchCase.brokers()).isEqualTo(BenchPlan.REPLICATED_BROKERS);
            assertThat(benchCase.clientArgs()).containsSubsequence("--acks", "all");
            assertThat(benchCase.pairings())
                    .containsExactly(Pairing.ISTHMUS_STACK, Pairing.KAFKA_CLIENTS_ON_ISTHMUS, Pairing.KAFKA_STACK);
        }
        assertThat(replicated.get(0).partitions()).isEqualTo(BenchPlan.REPLICATED_BROKERS);
        assertThat(BenchPlan.of(false, List.of()).cases().stream()
                        .filter(c -> !c.group().equals(BenchPlan.REPLICATED)))
                .allSatisfy(c -> assertThat(c.brokers()).as(c.id()).isEqualTo(1));
    }

    @Test
    void fullRunsRepeatEveryPairingThreeTimesAndQuickRunsOnce() {
        assertThat(BenchPlan.of(false, List.of()).repetitions()).isEqualTo(3);
        assertThat(BenchPlan.of(true, List.of()).repetitions()).isEqualTo(1);
        assertThat(BenchPlan.of(true, List.of(), 5).describe()).containsEntry("repetitions", 5);
        assertThatThrownBy(() -> BenchPlan.of(false, List.of(), 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("repetitions must be at least 1");
    }
}
