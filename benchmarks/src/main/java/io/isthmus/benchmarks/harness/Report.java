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
     * The summary figures, keys fixed, each the median over the run's repetitions: every ratio is the isthmus stack
     * (isthmus client on the isthmus broker) over the Kafka stack (kafka-clients on Kafka) for 100 B records and 1
     * partition unless its name says otherwise ({@code *_broker_ratio}: kafka-clients on both brokers); the
     * consumer figures are the isthmus zero-copy consumer's on the isthmus broker; null where the run did not measure
     * it. Three kinds of ratio say in their names what they compare instead: {@code flink_source_vs_kafkasource}
     * (IsthmusSource over Flink's KafkaSource, both on the isthmus broker), {@code spark_source_vs_kafka_source} and
     * {@code spark_batch_latency_ratio} (the same Spark query with format("isthmus") over format("kafka"), both on the
     * isthmus broker: records/s, and the median micro-batch time) and the {@code txn_*_broker_ratio}s
     * (transactions, kafka-clients on both brokers: the isthmus broker over Kafka's). The {@code replicated_*} ratios
     * are measured on three brokers of each kind with replication factor 3 and acks=all: produce throughput of 1 KiB
     * records into three partitions, and unbatched produce latency of 100 B records.
     */
    private static final String REPLICATED_PRODUCE = "replicated-produce-1KiB-p3-acksall";

    private static final String REPLICATED_LATENCY = "replicated-produce-latency-100B-acksall";

    public Map<String, Double> summary() {
        final Map<String, Double> summary = new LinkedHashMap<>();
        summary.put("produce_ratio", ratio("produce-100B-p1-acks1", "mb_per_s"));
        summary.put("consume_ratio", ratio("consume-100B-p1", "mb_per_s"));
        // The broker alone, kafka-clients on both: what the isthmus broker's fetch path adds over Kafka's.
        summary.put("consume_broker_ratio", brokerRatio("consume-100B-p1", "mb_per_s"));
        summary.put("consume_1k_broker_ratio", brokerRatio("consume-1KiB-p1", "mb_per_s"));
        summary.put("produce_broker_ratio", brokerRatio("produce-100B-p1-acks1", "mb_per_s"));
        summary.put("produce_p50_latency_ratio", ratio("produce-latency-100B-acks1", "p50_us"));
        summary.put("e2e_p50_latency_ratio", ratio("e2e-latency-100B-rate1000", "p50_us"));
        summary.put(
                "consumer_heap_bytes_per_record",
                figure("consume-100B-p1", Pairing.ISTHMUS_STACK, "heap_bytes_per_record_poll_thread"));
        final Double consume1k = figure("consume-1KiB-p1", Pairing.ISTHMUS_STACK, "mb_per_s");
        final Double tcp = limits.get("tcp_loopback_gb_per_s") instanceof Number n ? n.doubleValue() : null;
        summary.put("consume_1k_vs_tcp_limit", consume1k == null || tcp == null ? null : consume1k / (tcp * 1000));
        final Double memcpy = limits.get("memcpy_gb_per_s") instanceof Number n ? n.doubleValue() : null;
        // The isthmus consumer over shared memory, on the same broker and preloaded topic as the TCP rows.
        final Double shm100 = figure("consume-100B-p1", Pairing.ISTHMUS_SHM_STACK, "mb_per_s");
        final Double kafka100 = figure("consume-100B-p1", Pairing.KAFKA_STACK, "mb_per_s");
        final Double tcp100 = figure("consume-100B-p1", Pairing.ISTHMUS_STACK, "mb_per_s");
        final Double shm1k = figure("consume-1KiB-p1", Pairing.ISTHMUS_SHM_STACK, "mb_per_s");
        summary.put("shm_consume_ratio", quotient(shm100, kafka100));
        summary.put("shm_consume_vs_tcp", quotient(shm100, tcp100));
        summary.put("shm_consume_1k_vs_tcp", quotient(shm1k, consume1k));
        summary.put("shm_consume_1k_vs_memcpy", shm1k == null || memcpy == null ? null : shm1k / (memcpy * 1000));
        summary.put(
                "shm_consumer_heap_bytes_per_record",
                figure("consume-100B-p1", Pairing.ISTHMUS_SHM_STACK, "heap_bytes_per_record_poll_thread"));
        // The isthmus producer over shared memory over the isthmus producer over TCP, same broker, acks=1.
        summary.put(
                "shm_produce_vs_tcp",
                quotient(
                        figure("produce-100B-p1-acks1", Pairing.ISTHMUS_SHM_STACK, "mb_per_s"),
                        figure("produce-100B-p1-acks1", Pairing.ISTHMUS_STACK, "mb_per_s")));
        summary.put(
                "shm_produce_1k_vs_tcp",
                quotient(
                        figure("produce-1KiB-p1-acks1", Pairing.ISTHMUS_SHM_STACK, "mb_per_s"),
                        figure("produce-1KiB-p1-acks1", Pairing.ISTHMUS_STACK, "mb_per_s")));
        final Double append = limits.get("log_append_64k_gb_per_s") instanceof Number n ? n.doubleValue() : null;
        summary.put("log_append_64k_vs_memcpy", append == null || memcpy == null ? null : append / memcpy);
        // The same job and broker, IsthmusSource over Flink's KafkaSource.
        summary.put("flink_source_vs_kafkasource", clientRatio("flink-100B-p1", "records_per_s"));
        // The same Spark query and broker, format("isthmus") over Spark's format("kafka").
        summary.put("spark_source_vs_kafka_source", clientRatio("spark-100B-p1", "records_per_s"));
        summary.put("spark_batch_latency_ratio", clientRatio("spark-100B-p1", "batch_latency_p50_ms"));
        // Transactions, kafka-clients on both brokers (transactional produce; read_committed consume of data written
        // in transactions): the isthmus broker over Kafka's.
        summary.put("txn_produce_broker_ratio", brokerRatio("txn-produce-100B-p1", "mb_per_s"));
        summary.put("txn_consume_broker_ratio", brokerRatio("txn-consume-100B-p1", "mb_per_s"));
        // The same, isthmus client on the isthmus broker over kafka-clients on Kafka.
        summary.put("txn_produce_ratio", ratio("txn-produce-100B-p1", "mb_per_s"));
        summary.put("txn_consume_ratio", ratio("txn-consume-100B-p1", "mb_per_s"));
        // Three brokers of each kind, replication factor 3, acks=all: the isthmus stack over the Kafka stack, and
        // kafka-clients on both clusters.
        summary.put("replicated_produce_ratio", ratio(REPLICATED_PRODUCE, "mb_per_s"));
        summary.put("replicated_produce_broker_ratio", brokerRatio(REPLICATED_PRODUCE, "mb_per_s"));
        summary.put("replicated_p50_latency_ratio", ratio(REPLICATED_LATENCY, "p50_us"));
        summary.put("replicated_p99_latency_ratio", ratio(REPLICATED_LATENCY, "p99_us"));
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
        final int repetitions =
                outcomes.stream().mapToInt(CaseOutcome::repetitionCount).max().orElse(1);
        md.append(
                repetitions == 1
                        ? "Each pairing ran once: a ratio can move by noise alone; compare runs before quoting one.\n\n"
                        : "Each pairing ran " + repetitions
                                + " times, the pairings of a case side by side in each repetition and the order of"
                                + " the brokers alternating: every figure is the median over the repetitions, every"
                                + " ratio the median of the repetitions' own ratios with their range in"
                                + " parentheses.\n\n");
        md.append("Ratios are isthmus over Kafka: above 1 is better for isthmus in throughput, below 1 is better for"
                + " isthmus in latency, CPU and allocation. Three ratios per case: **stack** is the isthmus client on"
                + " the isthmus broker over kafka-clients on Kafka (the summary line's ratios, 100 B records, 1"
                + " partition); **broker only** is kafka-clients on the isthmus broker over kafka-clients on Kafka;"
                + " **client only** is the isthmus client over kafka-clients, both on the isthmus broker."
                + " `consumer_heap_bytes_per_record` is the isthmus zero-copy consumer's polling thread on the isthmus"
                + " broker; `consume_1k_vs_tcp_limit` is its 1 KiB consume bandwidth over the loopback TCP limit"
                + " below, `log_append_64k_vs_memcpy` the isthmus log's append bandwidth over memcpy (both below);"
                + " `*_broker_ratio` are broker-only ratios (kafka-clients on both); `flink_source_vs_kafkasource`"
                + " is IsthmusSource over Flink's KafkaSource on the isthmus broker; `spark_source_vs_kafka_source` is the same Spark query's records/s with format(\"isthmus\")"
                + " over Spark's format(\"kafka\") on the isthmus broker, `spark_batch_latency_ratio` its median"
                + " micro-batch time's; `txn_produce_broker_ratio` and `txn_consume_broker_ratio` are broker-only ratios"
                + " (kafka-clients on both) of transactional produce and read_committed consume, `txn_produce_ratio`"
                + " and `txn_consume_ratio` their stack ratios. `replicated_*` are measured on three brokers of each"
                + " kind with replication factor 3 and acks=all: `replicated_produce_ratio` (stack) and"
                + " `replicated_produce_broker_ratio` (broker only) of 1 KiB produce throughput into three partitions,"
                + " `replicated_p50_latency_ratio` and `replicated_p99_latency_ratio` (stack) of unbatched 100 B"
                + " produce latency. `shm_*` are the isthmus consumer reading the isthmus"
                + " broker's log through shared memory (`transport=shm`, the same preloaded topic): over kafka-clients"
                + " on Kafka (`shm_consume_ratio`), over the isthmus consumer over TCP (`shm_consume_vs_tcp`, 100 B;"
                + " `shm_consume_1k_vs_tcp`, 1 KiB), its 1 KiB bandwidth over memcpy (`shm_consume_1k_vs_memcpy`),"
                + " and its polling thread's heap bytes per record; `shm_produce_vs_tcp` (100 B) and"
                + " `shm_produce_1k_vs_tcp` (1 KiB) are the isthmus producer over shared memory (staging files and a"
                + " doorbell per batch) over the isthmus producer over TCP, acks=1, same broker; these divide the"
                + " pairings' median figures. Every client runs in its own JVM.\n\n");
        headline(md);
        md.append(machine.markdown()).append('\n');
        md.append("## Physical limits (same run)\n\n| limit | GB/s |\n| --- | ---: |\n");
        md.append("| memcpy, one thread | ")
                .append(fmt(limits.get("memcpy_gb_per_s"), 2))
                .append(" |\n");
        md.append("| TCP loopback, one connection | ")
                .append(fmt(limits.get("tcp_loopback_gb_per_s"), 2))
                .append(" |\n");
        md.append("| isthmus log append, one thread, 64 KiB batches (not a limit: the log's own rate) | ")
                .append(fmt(limits.get("log_append_64k_gb_per_s"), 2))
                .append(" |\n\n");
        md.append("## Settings\n\n");
        settings.forEach(s -> md.append("- ").append(s).append('\n'));
        md.append('\n');
        section(
                md,
                BenchPlan.PRODUCE,
                "Produce throughput (1 producer, each client's recommended batching)",
                new String[] {"record_bytes", "partitions", "acks"},
                new Column[] {
                    new Column("MB/s", "mb_per_s", 1, true),
                    new Column("broker CPU s/GB", "broker_cpu_s_per_gb", 2, true),
                    new Column("client heap B/record (send thread)", "heap_bytes_per_record_send_thread", 1, true),
                    new Column("client heap B/record (all threads)", "heap_bytes_per_record_all_threads", 0, true)
                });
        section(
                md,
                BenchPlan.CONSUME,
                "Consume throughput of preloaded data (1 consumer)",
                new String[] {"record_bytes", "partitions"},
                new Column[] {
                    new Column("MB/s", "mb_per_s", 1, true),
                    new Column("broker CPU s/GB", "broker_cpu_s_per_gb", 2, true),
                    new Column("client heap B/record (poll thread)", "heap_bytes_per_record_poll_thread", 1, true),
                    new Column("client heap B/record (all threads)", "heap_bytes_per_record_all_threads", 0, true)
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
        section(
                md,
                BenchPlan.FLINK,
                "Flink job, source → map → discarding sink (local Flink, one slot per partition): the isthmus client"
                        + " rows run IsthmusSource with its zero-copy deserializer, the kafka-clients rows Flink's"
                        + " KafkaSource (flink-connector-kafka)",
                new String[] {"record_bytes", "partitions"},
                new Column[] {
                    new Column("records/s", "records_per_s", 0, true),
                    new Column("broker CPU s/GB", "broker_cpu_s_per_gb", 2, true)
                });
        section(
                md,
                BenchPlan.SPARK,
                "Spark Structured Streaming query, read → count by key → noop sink (local Spark, Trigger.AvailableNow,"
                        + " 20 micro-batches): the isthmus client rows run format(\"isthmus\"), the kafka-clients rows"
                        + " Spark's format(\"kafka\") (spark-sql-kafka-0-10)",
                new String[] {"record_bytes", "partitions"},
                new Column[] {
                    new Column("records/s", "records_per_s", 0, true),
                    new Column("micro-batch p50 ms", "batch_latency_p50_ms", 0, true),
                    new Column("broker CPU s/GB", "broker_cpu_s_per_gb", 2, true)
                });
        section(
                md,
                BenchPlan.TRANSACTIONS,
                "produce",
                "Transactional produce throughput (1 producer, acks=all, begin, 1,000 sends, commit; the clock stops"
                        + " when the last commit returned)",
                new String[] {"record_bytes", "partitions", "transaction_records"},
                new Column[] {
                    new Column("records/s", "records_per_s", 0, true),
                    new Column("MB/s", "mb_per_s", 1, true),
                    new Column("commits/s", "transactions_per_s", 0, true),
                    new Column("commit p50 µs", "commit_p50_us", 0, true),
                    new Column("commit p99 µs", "commit_p99_us", 0, true),
                    new Column("broker CPU s/GB", "broker_cpu_s_per_gb", 2, true),
                    new Column("client heap B/record (send thread)", "heap_bytes_per_record_send_thread", 1, true)
                });
        section(
                md,
                BenchPlan.TRANSACTIONS,
                "consume",
                "read_committed consume throughput of data written in transactions (1 consumer, a commit marker"
                        + " every 1,000 records)",
                new String[] {"record_bytes", "partitions", "transaction_records"},
                new Column[] {
                    new Column("records read", "preload_records", 0, false),
                    new Column("commit markers in the log", "preload_marker_offsets", 0, false),
                    new Column("records/s", "records_per_s", 0, true),
                    new Column("MB/s", "mb_per_s", 1, true),
                    new Column("broker CPU s/GB", "broker_cpu_s_per_gb", 2, true),
                    new Column("client heap B/record (poll thread)", "heap_bytes_per_record_poll_thread", 1, true)
                });
        section(
                md,
                BenchPlan.REPLICATED,
                "produce",
                "Replicated produce throughput: three brokers of each kind, replication factor 3, min.insync.replicas=2,"
                        + " acks=all (1 producer, each client's recommended batching)",
                new String[] {"record_bytes", "partitions", "brokers"},
                new Column[] {
                    new Column("MB/s", "mb_per_s", 1, true),
                    new Column("records/s", "records_per_s", 0, true),
                    new Column("broker CPU s/GB (3 brokers)", "broker_cpu_s_per_gb", 2, true)
                });
        section(
                md,
                BenchPlan.REPLICATED,
                "produce-latency",
                "Replicated produce latency, unbatched (linger.ms=0, 1 in flight): three brokers of each kind,"
                        + " replication factor 3, acks=all",
                new String[] {"record_bytes", "brokers", "acks"},
                latencyColumns());
        failures(md);
        if (!plots.isEmpty()) {
            md.append("## Plots\n\n");
            plots.forEach(p -> md.append("![").append(p).append("](").append(p).append(")\n\n"));
        }
        return md.toString();
    }

    private static Column[] latencyColumns() {
        return new Column[] {
            new Column("samples", "samples", 0, false),
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
        section(md, group, null, title, paramKeys, columns);
    }

    /**
     * One row per pairing that ran the case, then the ratio rows that have figures; the cases of {@code group}, only
     * those of {@code workload} where it is not null.
     */
    private void section(
            final StringBuilder md,
            final String group,
            final String workload,
            final String title,
            final String[] paramKeys,
            final Column[] columns) {
        final List<CaseOutcome> rows = new ArrayList<>();
        for (final CaseOutcome outcome : outcomes) {
            if (outcome.benchCase().group().equals(group)
                    && (workload == null || outcome.benchCase().workload().equals(workload))) {
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
        md.append(" client → broker |");
        for (final Column column : columns) {
            md.append(' ').append(column.title()).append(" |");
        }
        md.append("\n|");
        md.append(" --- |".repeat(paramKeys.length + 1));
        md.append(" ---: |".repeat(columns.length));
        md.append('\n');
        for (final CaseOutcome row : rows) {
            final StringBuilder params = new StringBuilder("|");
            for (final String key : paramKeys) {
                params.append(' ').append(row.benchCase().params().get(key)).append(" |");
            }
            for (final Pairing pairing : row.results().keySet()) {
                md.append(params).append(' ').append(pairing.title()).append(" |");
                for (final Column column : columns) {
                    md.append(' ')
                            .append(fmt(row.figure(pairing, column.key()), column.decimals()))
                            .append(" |");
                }
                md.append('\n');
            }
            ratioRow(md, params, "**stack ratio** isthmus/Kafka", columns, row::ratioStats);
            ratioRow(md, params, "broker only (kafka-clients on both)", columns, row::brokerRatioStats);
            ratioRow(md, params, "client only (isthmus broker under both)", columns, row::clientRatioStats);
        }
        md.append('\n');
    }

    private static void ratioRow(
            final StringBuilder md,
            final StringBuilder params,
            final String title,
            final Column[] columns,
            final java.util.function.Function<String, RatioStats> ratio) {
        boolean any = false;
        final StringBuilder line =
                new StringBuilder(params).append(' ').append(title).append(" |");
        for (final Column column : columns) {
            final RatioStats value = column.ratio() ? ratio.apply(column.key()) : null;
            any |= value != null;
            line.append(' ').append(value == null ? "" : fmtStats(value)).append(" |");
        }
        if (any) {
            md.append(line).append('\n');
        }
    }

    /** The summary's figures side by side: both stacks, kafka-clients on isthmus, and the two ratios. */
    private void headline(final StringBuilder md) {
        final String[][] figures = {
            {"produce 100 B, 1 partition, MB/s", "produce-100B-p1-acks1", "mb_per_s", "1"},
            {"consume 100 B, 1 partition, MB/s", "consume-100B-p1", "mb_per_s", "1"},
            {"consume 1 KiB, 1 partition, MB/s", "consume-1KiB-p1", "mb_per_s", "1"},
            {"produce latency p50 µs (unbatched)", "produce-latency-100B-acks1", "p50_us", "0"},
            {"end-to-end latency p50 µs (1,000/s)", "e2e-latency-100B-rate1000", "p50_us", "0"},
            {"end-to-end latency p99 µs (1,000/s)", "e2e-latency-100B-rate1000", "p99_us", "0"},
            {"consumer heap B/record, poll thread (100 B)", "consume-100B-p1", "heap_bytes_per_record_poll_thread", "1"
            },
            {
                "producer heap B/record, send thread (100 B)",
                "produce-100B-p1-acks1",
                "heap_bytes_per_record_send_thread",
                "1"
            },
            {"transactional produce 100 B, 1 partition, MB/s", "txn-produce-100B-p1", "mb_per_s", "1"},
            {"read_committed consume 100 B, 1 partition, MB/s", "txn-consume-100B-p1", "mb_per_s", "1"}
        };
        md.append("## Headline\n\n| figure | isthmus client → isthmus | kafka-clients → Kafka | stack ratio |"
                + " kafka-clients → isthmus | broker-only ratio |\n| --- | ---: | ---: | ---: | ---: | ---: |\n");
        for (final String[] figure : figures) {
            final CaseOutcome outcome = outcome(figure[1]);
            if (outcome == null) {
                continue;
            }
            final int decimals = Integer.parseInt(figure[3]);
            md.append("| ")
                    .append(figure[0])
                    .append(" | ")
                    .append(fmt(outcome.figure(Pairing.ISTHMUS_STACK, figure[2]), decimals))
                    .append(" | ")
                    .append(fmt(outcome.figure(Pairing.KAFKA_STACK, figure[2]), decimals))
                    .append(" | ")
                    .append(stats(outcome.ratioStats(figure[2])))
                    .append(" | ")
                    .append(fmt(outcome.figure(Pairing.KAFKA_CLIENTS_ON_ISTHMUS, figure[2]), decimals))
                    .append(" | ")
                    .append(stats(outcome.brokerRatioStats(figure[2])))
                    .append(" |\n");
        }
        md.append('\n');
    }

    private static String stats(final RatioStats stats) {
        return stats == null ? "n/a" : fmtStats(stats);
    }

    private void failures(final StringBuilder md) {
        final List<String> lines = new ArrayList<>();
        for (final CaseOutcome outcome : outcomes) {
            for (final Pairing pairing : outcome.results().keySet()) {
                final Object error = outcome.of(pairing).get("error");
                if (error != null) {
                    lines.add("- " + outcome.benchCase().id() + ", " + pairing.title() + ": " + error);
                }
            }
        }
        if (!lines.isEmpty()) {
            md.append("## Failed runs\n\n");
            lines.forEach(l -> md.append(l).append('\n'));
            md.append('\n');
        }
    }

    private CaseOutcome outcome(final String caseId) {
        for (final CaseOutcome outcome : outcomes) {
            if (outcome.benchCase().id().equals(caseId)) {
                return outcome;
            }
        }
        return null;
    }

    private Double ratio(final String caseId, final String key) {
        final CaseOutcome outcome = outcome(caseId);
        return outcome == null ? null : outcome.ratio(key);
    }

    private Double brokerRatio(final String caseId, final String key) {
        final CaseOutcome outcome = outcome(caseId);
        return outcome == null ? null : outcome.brokerRatio(key);
    }

    /** The isthmus client over kafka-clients (for the engines: over their Kafka source), both on the isthmus broker. */
    private Double clientRatio(final String caseId, final String key) {
        final CaseOutcome outcome = outcome(caseId);
        return outcome == null ? null : outcome.clientRatio(key);
    }

    /** {@code numerator / denominator}, null where either was not measured. */
    private static Double quotient(final Double numerator, final Double denominator) {
        return numerator == null || denominator == null || denominator == 0 ? null : numerator / denominator;
    }

    private Double figure(final String caseId, final Pairing pairing, final String key) {
        final CaseOutcome outcome = outcome(caseId);
        return outcome == null ? null : outcome.figure(pairing, key);
    }

    /** A ratio's median, and with more than one repetition its range: {@code 1.52 (1.40–1.61)}. */
    static String fmtStats(final RatioStats stats) {
        final String median = fmt(stats.median(), 2);
        return stats.repetitions() < 2 ? median : median + " (" + fmt(stats.min(), 2) + "–" + fmt(stats.max(), 2) + ")";
    }

    private static String fmt(final Object value, final int decimals) {
        if (!(value instanceof Number number)) {
            return "n/a";
        }
        return String.format(Locale.ROOT, "%,." + decimals + "f", number.doubleValue());
    }

    private record Column(String title, String key, int decimals, boolean ratio) {}
}
