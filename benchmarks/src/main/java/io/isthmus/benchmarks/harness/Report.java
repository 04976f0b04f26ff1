package io.isthmus.benchmarks.harness;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The Markdown report and the one-line machine-readable summary of a run. */
public final class Report {
    private final boolean quick;
    private final String started;
    private final MachineInfo machine;
    private final Map<String, Object> limits;
    private final List<CaseOutcome> outcomes;
    private final List<String> plots;
    private final List<String> settings;

    public Report(
            final boolean quick,
            final String started,
            final MachineInfo machine,
            final Map<String, Object> limits,
            final List<CaseOutcome> outcomes,
            final List<String> plots,
            final List<String> settings) {
        this.quick = quick;
        this.started = started;
        this.machine = machine;
        this.limits = limits;
        this.outcomes = outcomes;
        this.plots = plots;
        this.settings = settings;
    }

    /**
     * The summary figures, keys fixed: every ratio is isthmus over Kafka for 100 B records and 1 partition unless its
     * name says otherwise; null where the run did not measure it.
     */
    public Map<String, Double> summary() {
        final Map<String, Double> summary = new LinkedHashMap<>();
        summary.put("produce_ratio", ratio("produce-100B-p1-acks1", "mb_per_s"));
        summary.put("consume_ratio", ratio("consume-100B-p1", "mb_per_s"));
        summary.put("produce_p50_latency_ratio", ratio("produce-latency-100B-acks1", "p50_us"));
        summary.put("e2e_p50_latency_ratio", ratio("e2e-latency-100B-rate1000", "p50_us"));
        // Today: kafka-clients' consumer against the isthmus broker (the isthmus consumer is not in client/ yet).
        summary.put(
                "consumer_heap_bytes_per_record",
                figure("consume-100B-p1", BrokerKind.ISTHMUS, "heap_bytes_per_record_poll_thread"));
        final Double consume1k = figure("consume-1KiB-p1", BrokerKind.ISTHMUS, "mb_per_s");
        final Double tcp = limits.get("tcp_loopback_gb_per_s") instanceof Number n ? n.doubleValue() : null;
        summary.put("consume_1k_vs_tcp_limit", consume1k == null || tcp == null ? null : consume1k / (tcp * 1000));
        return summary;
    }

    /** {@code bench: produce_ratio=X ... results=PATH}: keys in a fixed order, {@code n/a} where not measured. */
    public String summaryLine(final String resultsPath) {
        final StringBuilder line = new StringBuilder("bench:");
        summary().forEach((key, value) -> line.append(' ')
                .append(key)
                .append('=')
                .append(value == null ? "n/a" : String.format(Locale.ROOT, "%.3f", value)));
        return line.append(" results=").append(resultsPath).toString();
    }

    public String markdown(final String resultsPath) {
        final StringBuilder md = new StringBuilder();
        md.append("# isthmus vs Apache Kafka 4.4.0: ")
                .append(quick ? "quick (smoke) run" : "full run")
                .append(", ")
                .append(started)
                .append("\n\n");
        if (quick) {
            md.append("> A `--quick` run: few records, few configurations, on whatever else the machine was doing."
                    + " Smoke numbers, not results.\n\n");
        }
        md.append("```\n").append(summaryLine(resultsPath)).append("\n```\n\n");
        md.append("Ratios are isthmus over Kafka: above 1 is better for isthmus in throughput, below 1 is better for"
                + " isthmus in latency, CPU and allocation. Every client is kafka-clients 4.4.0 in its own JVM; the"
                + " isthmus client rows will join when the isthmus producer and consumer exist in `client/`."
                + " `consumer_heap_bytes_per_record` and `consume_1k_vs_tcp_limit` therefore describe"
                + " **kafka-clients' consumer reading from the isthmus broker** for now.\n\n");
        md.append(machine.markdown()).append('\n');
        md.append("## Physical limits (same run)\n\n| limit | GB/s |\n| --- | ---: |\n");
        md.append("| memcpy, one thread | ")
                .append(fmt(limits.get("memcpy_gb_per_s"), 2))
                .append(" |\n");
        md.append("| TCP loopback, one connection | ")
                .append(fmt(limits.get("tcp_loopback_gb_per_s"), 2))
                .append(" |\n\n");
        md.append("## Settings\n\n");
        settings.forEach(s -> md.append("- ").append(s).append('\n'));
        md.append('\n');
        section(
                md,
                BenchPlan.PRODUCE,
                "Produce throughput (1 producer, linger.ms=5, batch.size=64 KiB)",
                new String[] {"record_bytes", "partitions", "acks"},
                new Column[] {
                    new Column("MB/s", "mb_per_s", 1, true),
                    new Column("broker CPU s/GB", "broker_cpu_s_per_gb", 2, true),
                    new Column("client heap B/record (all threads)", "heap_bytes_per_record_all_threads", 0, false)
                });
        section(
                md,
                BenchPlan.CONSUME,
                "Consume throughput of preloaded data (1 consumer)",
                new String[] {"record_bytes", "partitions"},
                new Column[] {
                    new Column("MB/s", "mb_per_s", 1, true),
                    new Column("broker CPU s/GB", "broker_cpu_s_per_gb", 2, true),
                    new Column("client heap B/record (poll thread)", "heap_bytes_per_record_poll_thread", 0, false)
                });
        section(
                md,
                BenchPlan.PRODUCE_LATENCY,
                "Produce latency, unbatched (linger.ms=0, 1 in flight)",
                new String[] {"record_bytes", "acks"},
                latencyColumns());
        section(
                md,
                BenchPlan.E2E_LATENCY,
                "End-to-end latency at a fixed offered rate (producer to consumer)",
                new String[] {"record_bytes", "rate_per_s"},
                latencyColumns());
        section(
                md,
                BenchPlan.IDLE_FETCH,
                "Cost of empty polls (idle consumers on an empty topic)",
                new String[] {"consumers", "fetch_max_wait_ms"},
                new Column[] {
                    new Column("fetches/s", "fetches_per_s", 0, true),
                    new Column("broker CPU s per 100k fetches", "broker_cpu_s_per_100k_fetches", 3, true)
                });
        section(
                md,
                BenchPlan.FAN_OUT,
                "Fan-out (1 producer, N consumers, 1 KiB records)",
                new String[] {"consumers"},
                new Column[] {
                    new Column("aggregate MB/s", "aggregate_mb_per_s", 1, true),
                    new Column("broker CPU cores", "broker_cpu_cores", 2, true),
                    new Column("broker CPU s/GB delivered", "broker_cpu_s_per_gb", 2, true)
                });
        failures(md);
        if (!plots.isEmpty()) {
            md.append("## Plots\n\n");
            plots.forEach(p -> md.append("![").append(p).append("](").append(p).append(")\n\n"));
        }
        return md.toString();
    }

    private static Column[] latencyColumns() {
        return new Column[] {
            new Column("p50 µs", "p50_us", 0, true),
            new Column("p99 µs", "p99_us", 0, true),
            new Column("p99.9 µs", "p999_us", 0, true),
            new Column("broker CPU cores", "broker_cpu_cores", 2, false)
        };
    }

    private void section(
            final StringBuilder md,
            final String group,
            final String title,
            final String[] paramKeys,
            final Column[] columns) {
        final List<CaseOutcome> rows = new ArrayList<>();
        for (final CaseOutcome outcome : outcomes) {
            if (outcome.benchCase().group().equals(group)) {
                rows.add(outcome);
            }
        }
        if (rows.isEmpty()) {
            return;
        }
        md.append("## ").append(title).append("\n\n|");
        for (final String key : paramKeys) {
            md.append(' ').append(key).append(" |");
        }
        for (final Column column : columns) {
            md.append(" isthmus ")
                    .append(column.title())
                    .append(" | Kafka ")
                    .append(column.title())
                    .append(" |");
            if (column.ratio()) {
                md.append(" isthmus/Kafka |");
            }
        }
        md.append("\n|");
        md.append(" --- |".repeat(paramKeys.length));
        for (final Column column : columns) {
            md.append(" ---: | ---: |");
            if (column.ratio()) {
                md.append(" ---: |");
            }
        }
        md.append('\n');
        for (final CaseOutcome row : rows) {
            md.append('|');
            for (final String key : paramKeys) {
                md.append(' ').append(row.benchCase().params().get(key)).append(" |");
            }
            for (final Column column : columns) {
                md.append(' ')
                        .append(fmt(row.figure(BrokerKind.ISTHMUS, column.key()), column.decimals()))
                        .append(" | ")
                        .append(fmt(row.figure(BrokerKind.KAFKA, column.key()), column.decimals()))
                        .append(" |");
                if (column.ratio()) {
                    md.append(' ').append(fmt(row.ratio(column.key()), 2)).append(" |");
                }
            }
            md.append('\n');
        }
        md.append('\n');
    }

    private void failures(final StringBuilder md) {
        final List<String> lines = new ArrayList<>();
        for (final CaseOutcome outcome : outcomes) {
            for (final BrokerKind kind : BrokerKind.values()) {
                final Object error = outcome.of(kind).get("error");
                if (error != null) {
                    lines.add("- " + outcome.benchCase().id() + " on " + kind.label() + ": " + error);
                }
            }
        }
        if (!lines.isEmpty()) {
            md.append("## Failed runs\n\n");
            lines.forEach(l -> md.append(l).append('\n'));
            md.append('\n');
        }
    }

    private Double ratio(final String caseId, final String key) {
        for (final CaseOutcome outcome : outcomes) {
            if (outcome.benchCase().id().equals(caseId)) {
                return outcome.ratio(key);
            }
        }
        return null;
    }

    private Double figure(final String caseId, final BrokerKind kind, final String key) {
        for (final CaseOutcome outcome : outcomes) {
            if (outcome.benchCase().id().equals(caseId)) {
                return outcome.figure(kind, key);
            }
        }
        return null;
    }

    private static String fmt(final Object value, final int decimals) {
        if (!(value instanceof Number number)) {
            return "n/a";
        }
        return String.format(Locale.ROOT, "%,." + decimals + "f", number.doubleValue());
    }

    private record Column(String title, String key, int decimals, boolean ratio) {}
}
