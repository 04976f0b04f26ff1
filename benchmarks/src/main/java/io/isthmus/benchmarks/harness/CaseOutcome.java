package io.isthmus.benchmarks.harness;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One case's results on each pairing of client library and broker, with derived figures and three isthmus/Kafka
 * ratios of its headline figures: the stacks ({@link Pairing#ISTHMUS_STACK} over {@link Pairing#KAFKA_STACK}), the
 * broker alone (kafka-clients on both) and the client alone (both clients on the isthmus broker).
 */
public record CaseOutcome(BenchCase benchCase, Map<Pairing, Map<String, Object>> results) {

    public CaseOutcome {
        final Map<Pairing, Map<String, Object>> ordered = new LinkedHashMap<>();
        for (final Pairing pairing : Pairing.ALL) {
            if (results.containsKey(pairing)) {
                ordered.put(pairing, results.get(pairing));
            }
        }
        results = ordered;
        results.values().forEach(result -> derive(benchCase, result));
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
        return results.getOrDefault(pairing, Map.of());
    }

    /** A numeric figure of one pairing's result, or null when missing (failed run, figure not measured, not run). */
    public Double figure(final Pairing pairing, final String key) {
        return number(of(pairing), key);
    }

    /** The isthmus stack over the Kafka stack (isthmus client and broker over kafka-clients and Kafka), or null. */
    public Double ratio(final String key) {
        return ratio(Pairing.ISTHMUS_STACK, Pairing.KAFKA_STACK, key);
    }

    /** The isthmus broker over Kafka, kafka-clients on both, or null. */
    public Double brokerRatio(final String key) {
        return ratio(Pairing.KAFKA_CLIENTS_ON_ISTHMUS, Pairing.KAFKA_STACK, key);
    }

    /** The isthmus client over kafka-clients, both on the isthmus broker, or null. */
    public Double clientRatio(final String key) {
        return ratio(Pairing.ISTHMUS_STACK, Pairing.KAFKA_CLIENTS_ON_ISTHMUS, key);
    }

    private Double ratio(final Pairing top, final Pairing bottom, final String key) {
        final Double numerator = figure(top, key);
        final Double denominator = figure(bottom, key);
        if (numerator == null || denominator == null || denominator == 0) {
            return null;
        }
        return numerator / denominator;
    }

    /** The stack ratios of every headline figure this case's group has. */
    public Map<String, Double> ratios() {
        return ratios(Pairing.ISTHMUS_STACK, Pairing.KAFKA_STACK);
    }

    private Map<String, Double> ratios(final Pairing top, final Pairing bottom) {
        final Map<String, Double> ratios = new LinkedHashMap<>();
        for (final String key : headlineKeys(benchCase.group())) {
            final Double ratio = ratio(top, bottom, key);
            if (ratio != null) {
                ratios.put(key, ratio);
            }
        }
        return ratios;
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
        final Map<String, Object> byPairing = new LinkedHashMap<>();
        results.forEach((pairing, result) -> byPairing.put(pairing.key(), result));
        map.put("results", byPairing);
        map.put("isthmus_stack_over_kafka_stack", ratios());
        map.put(
                "isthmus_broker_over_kafka_broker_with_kafka_clients",
                ratios(Pairing.KAFKA_CLIENTS_ON_ISTHMUS, Pairing.KAFKA_STACK));
        map.put(
                "isthmus_client_over_kafka_clients_on_isthmus_broker",
                ratios(Pairing.ISTHMUS_STACK, Pairing.KAFKA_CLIENTS_ON_ISTHMUS));
        return map;
    }

    static Double number(final Map<String, Object> map, final String key) {
        return map.get(key) instanceof Number number ? number.doubleValue() : null;
    }
}
