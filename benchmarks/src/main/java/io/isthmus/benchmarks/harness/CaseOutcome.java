package io.isthmus.benchmarks.harness;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One case's results on each pairing of client library and broker, over one or more repetitions, with derived figures
 * and three isthmus/Kafka ratios of its headline figures: the stacks ({@link Pairing#ISTHMUS_STACK} over {@link
 * Pairing#KAFKA_STACK}), the broker alone (kafka-clients on both) and the client alone (both clients on the isthmus
 * broker).
 *
 * <p><b>Repetitions.</b> Every pairing of a case runs once per repetition, the pairings of one repetition side by side.
 * A figure is the median over the repetitions that measured it; a ratio is the median of the repetitions' own ratios
 * (each taken between pairings that ran next to each other, so a drift in machine load between repetitions cancels),
 * and its {@link RatioStats spread} is their range.
 */
public final class CaseOutcome {
    private final BenchCase benchCase;
    private final List<Map<Pairing, Map<String, Object>>> repetitions;
    private final Map<Pairing, Map<String, Object>> medians;

    /** A case run once. */
    public CaseOutcome(final BenchCase benchCase, final Map<Pairing, Map<String, Object>> results) {
        this(benchCase, List.of(results));
    }

    /** A case run once per element of {@code repetitions}, each a result per pairing. */
    public CaseOutcome(final BenchCase benchCase, final List<Map<Pairing, Map<String, Object>>> repetitions) {
        if (repetitions.isEmpty()) {
            throw new IllegalArgumentException("a case outcome needs at least one repetition: " + benchCase.id());
        }
        this.benchCase = benchCase;
        final List<Map<Pairing, Map<String, Object>>> ordered = new ArrayList<>();
        for (final Map<Pairing, Map<String, Object>> results : repetitions) {
            final Map<Pairing, Map<String, Object>> repetition = new LinkedHashMap<>();
            for (final Pairing pairing : Pairing.ALL) {
                if (results.containsKey(pairing)) {
                    final Map<String, Object> result = results.get(pairing);
                    derive(benchCase, result);
                    repetition.put(pairing, result);
                }
            }
            ordered.add(repetition);
        }
        this.repetitions = List.copyOf(ordered);
        this.medians = medians(this.repetitions);
    }

    public BenchCase benchCase() {
        return benchCase;
    }

    /** How many times each pairing ran. */
    public int repetitionCount() {
        return repetitions.size();
    }

    /**
     * Per pairing that ran: the median of each numeric figure over the repetitions that measured it; other values
     * (latency CDFs, settings) from the first repetition that has them; {@code error} naming every repetition that
     * failed.
     */
    public Map<Pairing, Map<String, Object>> results() {
        return medians;
    }

    private static Map<Pairing, Map<String, Object>> medians(
            final List<Map<Pairing, Map<String, Object>>> repetitions) {
        final Map<Pairing, Map<String, Object>> medians = new LinkedHashMap<>();
        for (final Pairing pairing : Pairing.ALL) {
            final List<Map<String, Object>> runs = new ArrayList<>();
            for (final Map<Pairing, Map<String, Object>> repetition : repetitions) {
                if (repetition.containsKey(pairing)) {
                    runs.add(repetition.get(pairing));
                }
            }
            if (runs.isEmpty()) {
                continue;
            }
            if (runs.size() == 1) {
                medians.put(pairing, runs.get(0));
                continue;
            }
            final Map<String, Object> median = new LinkedHashMap<>();
            final List<String> errors = new ArrayList<>();
            for (int i = 0; i < runs.size(); i++) {
                for (final Map.Entry<String, Object> entry : runs.get(i).entrySet()) {
                    if (entry.getKey().equals("error")) {
                        errors.add("repetition " + (i + 1) + ": " + entry.getValue());
                    } else if (!median.containsKey(entry.getKey())) {
                        median.put(
                                entry.getKey(),
                                entry.getValue() instanceof Number ? medianOf(runs, entry.getKey()) : entry.getValue());
                    }
                }
            }
            if (!errors.isEmpty()) {
                median.put("error", String.join("; ", errors));
            }
            medians.put(pairing, median);
        }
        return medians;
    }

    private static Double medianOf(final List<Map<String, Object>> runs, final String key) {
        final List<Double> values = new ArrayList<>();
        for (final Map<String, Object> run : runs) {
            final Double value = number(run, key);
            if (value != null) {
                values.add(value);
            }
        }
        return RatioStats.median(values);
    }

    /** Figures derived from a client result and the broker CPU of its phase. */
    private static void derive(final BenchCase benchCase, final Map<String, Object> result) {
        final Double endOffsets = number(result, "preload_end_offsets");
        final Double preloaded = number(result, "preload_records");
        if (endOffsets != null && preloaded != null) {
            // Offsets the preload took beyond its records: the commit markers of a transactional preload.
            result.put("preload_marker_offsets", endOffsets - preloaded);
        }
        final Double brokerCpu = number(result, "broker_cpu_s");
        if (brokerCpu == null) {
            return;
        }
        final Double records = number(result, "records");
        final Double recordBytes = number(result, "record_bytes");
        if (records != null && recordBytes != null && records > 0) {
            final double gigabytes = records * recordBytes / 1e9;
            final Double consumers = number(result, "consumers");
            result.put("broker_cpu_s_per_gb", brokerCpu / (gigabytes * (consumers == null ? 1 : consumers)));
        }
        final Double fetches = number(result, "fetch_requests");
        if (benchCase.group().equals(BenchPlan.IDLE_FETCH) && fetches != null && fetches > 0) {
            result.put("broker_cpu_s_per_100k_fetches", brokerCpu / fetches * 100_000);
        }
    }

    public Map<String, Object> of(final Pairing pairing) {
        return medians.getOrDefault(pairing, Map.of());
    }

    /**
     * A numeric figure of one pairing's result, the median over the repetitions, or null when missing (failed runs,
     * figure not measured, not run).
     */
    public Double figure(final Pairing pairing, final String key) {
        return number(of(pairing), key);
    }

    /**
     * The isthmus stack over the Kafka stack (isthmus client and broker over kafka-clients and Kafka), the median over
     * the repetitions, or null.
     */
    public Double ratio(final String key) {
        return median(ratioStats(Pairing.ISTHMUS_STACK, Pairing.KAFKA_STACK, key));
    }

    /** The isthmus broker over Kafka, kafka-clients on both, the median over the repetitions, or null. */
    public Double brokerRatio(final String key) {
        return median(ratioStats(Pairing.KAFKA_CLIENTS_ON_ISTHMUS, Pairing.KAFKA_STACK, key));
    }

    /** The isthmus client over kafka-clients, both on the isthmus broker, the median over the repetitions, or null. */
    public Double clientRatio(final String key) {
        return median(ratioStats(Pairing.ISTHMUS_STACK, Pairing.KAFKA_CLIENTS_ON_ISTHMUS, key));
    }

    /** {@link #ratio} with its spread over the repetitions, or null. */
    public RatioStats ratioStats(final String key) {
        return ratioStats(Pairing.ISTHMUS_STACK, Pairing.KAFKA_STACK, key);
    }

    /** {@link #brokerRatio} with its spread over the repetitions, or null. */
    public RatioStats brokerRatioStats(final String key) {
        return ratioStats(Pairing.KAFKA_CLIENTS_ON_ISTHMUS, Pairing.KAFKA_STACK, key);
    }

    /** {@link #clientRatio} with its spread over the repetitions, or null. */
    public RatioStats clientRatioStats(final String key) {
        return ratioStats(Pairing.ISTHMUS_STACK, Pairing.KAFKA_CLIENTS_ON_ISTHMUS, key);
    }

    /** {@code top} over {@code bottom} in each repetition that measured both, summarised; null if none did. */
    private RatioStats ratioStats(final Pairing top, final Pairing bottom, final String key) {
        final List<Double> ratios = new ArrayList<>();
        for (final Map<Pairing, Map<String, Object>> repetition : repetitions) {
            final Double numerator = number(repetition.getOrDefault(top, Map.of()), key);
            final Double denominator = number(repetition.getOrDefault(bottom, Map.of()), key);
            if (numerator != null && denominator != null && denominator != 0) {
                ratios.add(numerator / denominator);
            }
        }
        return RatioStats.of(ratios);
    }

    private static Double median(final RatioStats stats) {
        return stats == null ? null : stats.median();
    }

    /** The stack ratios of every headline figure this case's group has. */
    public Map<String, Double> ratios() {
        return ratios(Pairing.ISTHMUS_STACK, Pairing.KAFKA_STACK);
    }

    private Map<String, Double> ratios(final Pairing top, final Pairing bottom) {
        final Map<String, Double> ratios = new LinkedHashMap<>();
        for (final String key : headlineKeys(benchCase.group())) {
            final RatioStats stats = ratioStats(top, bottom, key);
            if (stats != null) {
                ratios.put(key, stats.median());
            }
        }
        return ratios;
    }

    /** Each headline ratio's range over the repetitions, {@code [min, max]}. */
    private Map<String, List<Double>> spreads(final Pairing top, final Pairing bottom) {
        final Map<String, List<Double>> spreads = new LinkedHashMap<>();
        for (final String key : headlineKeys(benchCase.group())) {
            final RatioStats stats = ratioStats(top, bottom, key);
            if (stats != null) {
                spreads.put(key, List.of(stats.min(), stats.max()));
            }
        }
        return spreads;
    }

    static String[] headlineKeys(final String group) {
        return switch (group) {
            case BenchPlan.PRODUCE ->
                new String[] {
                    "mb_per_s",
                    "broker_cpu_s_per_gb",
                    "heap_bytes_per_record_send_thread",
                    "heap_bytes_per_record_all_threads"
                };
            case BenchPlan.CONSUME ->
                new String[] {
                    "mb_per_s",
                    "broker_cpu_s_per_gb",
                    "heap_bytes_per_record_poll_thread",
                    "heap_bytes_per_record_all_threads"
                };
            case BenchPlan.PRODUCE_LATENCY, BenchPlan.E2E_LATENCY -> new String[] {"p50_us", "p99_us", "p999_us"};
            case BenchPlan.IDLE_FETCH -> new String[] {"fetches_per_s", "broker_cpu_s_per_100k_fetches"};
            case BenchPlan.FAN_OUT -> new String[] {"aggregate_mb_per_s", "broker_cpu_s_per_gb"};
            case BenchPlan.FLINK -> new String[] {"records_per_s", "broker_cpu_s_per_gb"};
            case BenchPlan.SPARK -> new String[] {"records_per_s", "batch_latency_p50_ms", "broker_cpu_s_per_gb"};
            case BenchPlan.REPLICATED -> new String[] {"mb_per_s", "p50_us", "p99_us", "broker_cpu_s_per_gb"};
            case BenchPlan.TRANSACTIONS ->
                new String[] {"records_per_s", "mb_per_s", "broker_cpu_s_per_gb", "commit_p50_us"};
            default -> new String[0];
        };
    }

    public Map<String, Object> asMap() {
        final Map<String, Object> map = new LinkedHashMap<>();
        map.put("id", benchCase.id());
        map.put("group", benchCase.group());
        map.put("params", benchCase.params());
        map.put("repetitions", repetitions.size());
        map.put("results", byKey(medians));
        final List<Map<String, Object>> runs = new ArrayList<>();
        repetitions.forEach(repetition -> runs.add(byKey(repetition)));
        map.put("results_per_repetition", runs);
        map.put("isthmus_stack_over_kafka_stack", ratios());
        map.put("isthmus_stack_over_kafka_stack_spread", spreads(Pairing.ISTHMUS_STACK, Pairing.KAFKA_STACK));
        map.put(
                "isthmus_broker_over_kafka_broker_with_kafka_clients",
                ratios(Pairing.KAFKA_CLIENTS_ON_ISTHMUS, Pairing.KAFKA_STACK));
        map.put(
                "isthmus_broker_over_kafka_broker_with_kafka_clients_spread",
                spreads(Pairing.KAFKA_CLIENTS_ON_ISTHMUS, Pairing.KAFKA_STACK));
        map.put(
                "isthmus_client_over_kafka_clients_on_isthmus_broker",
                ratios(Pairing.ISTHMUS_STACK, Pairing.KAFKA_CLIENTS_ON_ISTHMUS));
        map.put(
                "isthmus_client_over_kafka_clients_on_isthmus_broker_spread",
                spreads(Pairing.ISTHMUS_STACK, Pairing.KAFKA_CLIENTS_ON_ISTHMUS));
        return map;
    }

    private static Map<String, Object> byKey(final Map<Pairing, Map<String, Object>> results) {
        final Map<String, Object> byPairing = new LinkedHashMap<>();
        results.forEach((pairing, result) -> byPairing.put(pairing.key(), result));
        return byPairing;
    }

    static Double number(final Map<String, Object> map, final String key) {
        return map.get(key) instanceof Number number ? number.doubleValue() : null;
    }
}
