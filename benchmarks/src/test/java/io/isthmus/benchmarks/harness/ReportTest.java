package io.isthmus.benchmarks.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReportTest {
    private static final MachineInfo MACHINE = new MachineInfo("cpu", 2, 1L << 30, "6.1", "25", "vm", "Linux amd64");

    @Test
    void summaryHasTheTransactionBrokerRatios() {
        final List<CaseOutcome> outcomes = transactionOutcomes();
        final Report report = new Report(true, "now", MACHINE, Map.of(), outcomes, List.of(), List.of());
        final Map<String, Double> summary = report.summary();
        assertThat(summary.get("txn_produce_broker_ratio")).isCloseTo(2.0, within(1e-9));
        assertThat(summary.get("txn_consume_broker_ratio")).isCloseTo(0.5, within(1e-9));
        assertThat(summary.get("produce_ratio")).isNull();
        assertThat(report.summaryLine("/tmp/x"))
                .contains(" txn_produce_broker_ratio=2.000 txn_consume_broker_ratio=0.500 txn_produce_ratio=n/a"
                        + " txn_consume_ratio=n/a results=/tmp/x")
                .contains("produce_ratio=n/a");
    }

    @Test
    void sparkRatiosAreTheIsthmusSourceOverSparksKafkaSourceOnTheIsthmusBroker() {
        final BenchCase spark =
                BenchPlan.of(true, List.of(BenchPlan.SPARK)).cases().get(0);
        final Map<Pairing, Map<String, Object>> results = new LinkedHashMap<>();
        results.put(Pairing.ISTHMUS_STACK, sparkResult(3.0e6, 40));
        results.put(Pairing.KAFKA_CLIENTS_ON_ISTHMUS, sparkResult(1.0e6, 160));
        results.put(Pairing.KAFKA_STACK, sparkResult(0.5e6, 320));
        final Report report = new Report(
                true, "now", MACHINE, Map.of(), List.of(new CaseOutcome(spark, results)), List.of(), List.of());
        assertThat(report.summary().get("spark_source_vs_kafka_source")).isCloseTo(3.0, within(1e-9));
        assertThat(report.summary().get("spark_batch_latency_ratio")).isCloseTo(0.25, within(1e-9));
        assertThat(report.markdown("/tmp/x")).contains("Spark Structured Streaming query");
    }

    private static Map<String, Object> sparkResult(final double recordsPerS, final long batchMs) {
        final Map<String, Object> result = new LinkedHashMap<>();
        result.put("records", 190_000L);
        result.put("record_bytes", 100);
        result.put("records_per_s", recordsPerS);
        result.put("mb_per_s", recordsPerS * 100 / 1e6);
        result.put("batch_latency_p50_ms", batchMs);
        result.put("broker_cpu_s", 1.0);
        return result;
    }

    @Test
    void summaryKeysAreFixedWhenNothingRan() {
        final Report report = new Report(true, "now", MACHINE, Map.of(), List.of(), List.of(), List.of());
        assertThat(report.summary())
                .containsKeys(
                        "txn_produce_broker_ratio",
                        "txn_consume_broker_ratio",
                        "txn_produce_ratio",
                        "txn_consume_ratio")
                .containsEntry("txn_produce_broker_ratio", null);
    }

    @Test
    void markdownHasOneSectionPerTransactionWorkloadWithTheBrokerOnlyRatio() {
        final Report report = new Report(true, "now", MACHINE, Map.of(), transactionOutcomes(), List.of(), List.of());
        final String md = report.markdown("/tmp/x");
        assertThat(md).contains("## Transactional produce throughput").contains("## read_committed consume throughput");
        final String produce = md.substring(
                md.indexOf("## Transactional produce throughput"), md.indexOf("## read_committed consume"));
        assertThat(produce)
                .contains("broker only (kafka-clients on both)")
                .doesNotContain("**stack ratio**")
                .doesNotContain("read_committed");
        assertThat(md).contains("| transactional produce 100 B, 1 partition, MB/s |");
    }

    private static List<CaseOutcome> transactionOutcomes() {
        final List<BenchCase> cases =
                BenchPlan.of(true, List.of(BenchPlan.TRANSACTIONS)).cases();
        return List.of(
                new CaseOutcome(cases.get(0), results(40.0, 20.0)),
                new CaseOutcome(cases.get(1), results(100.0, 200.0)));
    }

    private static Map<Pairing, Map<String, Object>> results(final double isthmusMb, final double kafkaMb) {
        final Map<Pairing, Map<String, Object>> results = new LinkedHashMap<>();
        results.put(Pairing.KAFKA_STACK, result(kafkaMb));
        results.put(Pairing.KAFKA_CLIENTS_ON_ISTHMUS, result(isthmusMb));
        return results;
    }

    private static Map<String, Object> result(final double mbPerS) {
        final Map<String, Object> result = new LinkedHashMap<>();
        result.put("records", 200_000L);
        result.put("record_bytes", 100);
        result.put("mb_per_s", mbPerS);
        result.put("records_per_s", mbPerS * 1e4);
        result.put("broker_cpu_s", 1.0);
        return result;
    }
}
