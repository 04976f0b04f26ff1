package io.isthmus.benchmarks.harness;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;

/** One case's results on both brokers, with derived figures and the isthmus/Kafka ratios of its headline figures. */
public record CaseOutcome(BenchCase benchCase, Map<BrokerKind, Map<String, Object>> results) {

    public CaseOutcome {
        results = new EnumMap<>(results);
        results.values().forEach(result -> derive(benchCase, result));
    }

    /** Figures derived from a client result and the broker CPU of its phase. */
    private static void derive(final BenchCase benchCase, final Map<String, Object> result) {
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

    public Map<String, Object> of(final BrokerKind kind) {
        return results.getOrDefault(kind, Map.of());
    }

    /** A numeric figure of one broker's result, or null when missing (failed run, figure not measured). */
    public Double figure(final BrokerKind kind, final String key) {
        return number(of(kind), key);
    }

    /** isthmus over Kafka for {@code key}, or null. */
    public Double ratio(final String key) {
        final Double isthmus = figure(BrokerKind.ISTHMUS, key);
        final Double kafka = figure(BrokerKind.KAFKA, key);
        if (isthmus == null || kafka == null || kafka == 0) {
            return null;
        }
        return isthmus / kafka;
    }

    /** The ratios of every headline figure this case's group has. */
    public Map<String, Double> ratios() {
        final Map<String, Double> ratios = new LinkedHashMap<>();
        for (final String key : headlineKeys(benchCase.group())) {
            final Double ratio = ratio(key);
            if (ratio != null) {
                ratios.put(key, ratio);
            }
        }
        return ratios;
    }

    static String[] headlineKeys(final String group) {
        return switch (group) {
            case BenchPlan.PRODUCE, BenchPlan.CONSUME ->
                new String[] {"mb_per_s", "broker_cpu_s_per_gb", "heap_bytes_per_record_all_threads"};
            case BenchPlan.PRODUCE_LATENCY, BenchPlan.E2E_LATENCY -> new String[] {"p50_us", "p99_us", "p999_us"};
            case BenchPlan.IDLE_FETCH -> new String[] {"fetches_per_s", "broker_cpu_s_per_100k_fetches"};
            case BenchPlan.FAN_OUT -> new String[] {"aggregate_mb_per_s", "broker_cpu_s_per_gb"};
            default -> new String[0];
        };
    }

    public Map<String, Object> asMap() {
        final Map<String, Object> map = new LinkedHashMap<>();
        map.put("id", benchCase.id());
        map.put("group", benchCase.group());
        map.put("params", benchCase.params());
        final Map<String, Object> byBroker = new LinkedHashMap<>();
        results.forEach((kind, result) -> byBroker.put(kind.label(), result));
        map.put("results", byBroker);
        map.put("isthmus_over_kafka", ratios());
        return map;
    }

    static Double number(final Map<String, Object> map, final String key) {
        return map.get(key) instanceof Number number ? number.doubleValue() : null;
    }
}
