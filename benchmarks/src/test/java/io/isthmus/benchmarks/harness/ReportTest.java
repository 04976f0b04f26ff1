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
                        + " txn_consume_ratio=n/a ")
                .endsWith(" replicated_p99_latency_ratio=n/a results=/tmp/x")
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

    /**
     * Three repetitions: a figure is the median of the three, a ratio the median of the three repetitions' own ratios
     * (not the ratio of the medians), and the table shows the range; one disturbed repetition moves neither.
     */
    @Test
    void repeatedCasesReportMediansOfTheRepetitionsOwnRatiosWithTheirRange() {
        final BenchCase consume = consume100B();
        final List<Map<Pairing, Map<String, Object>>> repetitions =
                List.of(consumeResults(300, 100, 150), consumeResults(330, 100, 140), consumeResults(30, 100, 10));
        final CaseOutcome outcome = new CaseOutcome(consume, repetitions);

        assertThat(outcome.repetitionCount()).isEqualTo(3);
        assertThat(outcome.figure(Pairing.ISTHMUS_STACK, "mb_per_s")).isCloseTo(300.0, within(1e-9));
        assertThat(outcome.ratioStats("mb_per_s"))
                .as("ratios 3.0, 3.3 and 0.3: median 3.0, range 0.3 to 3.3")
                .isEqualTo(new RatioStats(3.0, 0.3, 3.3, 3));
        assertThat(outcome.brokerRatio("mb_per_s")).as("1.5, 1.4, 0.1").isCloseTo(1.4, within(1e-9));
        final Report report = new Report(false, "now", MACHINE, Map.of(), List.of(outcome), List.of(), List.of());
        assertThat(report.summary().get("consume_ratio")).isCloseTo(3.0, within(1e-9));
        assertThat(report.summary().get("consume_broker_ratio")).isCloseTo(1.4, within(1e-9));
        assertThat(report.summaryLine("/tmp/x"))
                .contains(" consume_ratio=3.000 consume_broker_ratio=1.400 consume_1k_broker_ratio=n/a");
        final String md = report.markdown("/tmp/x");
        assertThat(md)
                .contains("Each pairing ran 3 times")
                .contains("| **stack ratio** isthmus/Kafka | 3.00 (0.30–3.30) |")
                .contains("| consume 100 B, 1 partition, MB/s | 300.0 | 100.0 | 3.00 (0.30–3.30) | 140.0 |"
                        + " 1.40 (0.10–1.50) |");
        @SuppressWarnings("unchecked")
        final List<Object> perRepetition = (List<Object>) outcome.asMap().get("results_per_repetition");
        assertThat(perRepetition).hasSize(3);
    }

    @Test
    void aFailedRepetitionIsReportedAndTheOthersStillCount() {
        final Map<Pairing, Map<String, Object>> failed = consumeResults(300, 100, 150);
        failed.put(Pairing.KAFKA_STACK, new LinkedHashMap<>(Map.of("error", "client exited 1")));
        final CaseOutcome outcome = new CaseOutcome(
                consume100B(), List.of(consumeResults(200, 100, 120), failed, consumeResults(400, 100, 110)));

        assertThat(outcome.of(Pairing.KAFKA_STACK).get("error")).isEqualTo("repetition 2: client exited 1");
        assertThat(outcome.ratioStats("mb_per_s")).isEqualTo(new RatioStats(3.0, 2.0, 4.0, 2));
    }

    private static BenchCase consume100B() {
        return BenchPlan.of(true, List.of(BenchPlan.CONSUME)).cases().stream()
                .filter(c -> c.id().equals("consume-100B-p1"))
                .findFirst()
                .orElseThrow();
    }

    private static Map<Pairing, Map<String, Object>> consumeResults(
            final double isthmusStack, final double kafkaStack, final double kafkaClientsOnIsthmus) {
        final Map<Pairing, Map<String, Object>> results = new LinkedHashMap<>();
        results.put(Pairing.ISTHMUS_STACK, result(isthmusStack));
        results.put(Pairing.KAFKA_CLIENTS_ON_ISTHMUS, result(kafkaClientsOnIsthmus));
        results.put(Pairing.KAFKA_STACK, result(kafkaStack));
        return results;
    }

    @Test
    void logAppendIsReportedAsAFractionOfMemcpyFromTheSameRun() {
        final Map<String, Object> limits =
                Map.of("memcpy_gb_per_s", 10.0, "tcp_loopback_gb_per_s", 4.0, "log_append_64k_gb_per_s", 1.5);
        final Report report = new Report(true, "now", MACHINE, limits, List.of(), List.of(), List.of());

        assertThat(report.summary().get("log_append_64k_vs_memcpy")).isCloseTo(0.15, within(1e-9));
        assertThat(report.summaryLine("/tmp/x")).contains(" log_append_64k_vs_memcpy=0.150 ");
        assertThat(report.markdown("/tmp/x")).contains("| isthmus log append, one thread, 64 KiB batches");
        assertThat(new Report(true, "now", MACHINE, Map.of(), List.of(), List.of(), List.of()).summaryLine("/x"))
                .contains(" log_append_64k_vs_memcpy=n/a ");
    }

    @Test
    void replicatedRatiosComeFromTheThreeBrokerCasesAndHaveTheirOwnSections() {
        final List<BenchCase> cases =
                BenchPlan.of(true, List.of(BenchPlan.REPLICATED)).cases();
        final Map<Pairing, Map<String, Object>> produce = new LinkedHashMap<>();
        produce.put(Pairing.ISTHMUS_STACK, Map.of("mb_per_s", 300.0));
        produce.put(Pairing.KAFKA_CLIENTS_ON_ISTHMUS, Map.of("mb_per_s", 200.0));
        produce.put(Pairing.KAFKA_STACK, Map.of("mb_per_s", 100.0));
        final Map<Pairing, Map<String, Object>> latency = new LinkedHashMap<>();
        latency.put(Pairing.ISTHMUS_STACK, Map.of("p50_us", 500.0, "p99_us", 900.0));
        latency.put(Pairing.KAFKA_CLIENTS_ON_ISTHMUS, Map.of("p50_us", 700.0, "p99_us", 1200.0));
        latency.put(Pairing.KAFKA_STACK, Map.of("p50_us", 1000.0, "p99_us", 3600.0));
        final Report report = new Report(
                true,
                "now",
                MACHINE,
                Map.of(),
                List.of(new CaseOutcome(cases.get(0), produce), new CaseOutcome(cases.get(1), latency)),
                List.of(),
                List.of());

        final Map<String, Double> summary = report.summary();
        assertThat(summary.get("replicated_produce_ratio")).isCloseTo(3.0, within(1e-9));
        assertThat(summary.get("replicated_produce_broker_ratio")).isCloseTo(2.0, within(1e-9));
        assertThat(summary.get("replicated_p50_latency_ratio")).isCloseTo(0.5, within(1e-9));
        assertThat(summary.get("replicated_p99_latency_ratio")).isCloseTo(0.25, within(1e-9));
        assertThat(summary.get("produce_ratio"))
                .as("the single-broker produce case did not run")
                .isNull();
        final String md = report.markdown("/tmp/x");
        assertThat(md)
                .contains("## Replicated produce throughput: three brokers of each kind")
                .contains("## Replicated produce latency, unbatched")
                .doesNotContain("## Produce throughput (1 producer");
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
