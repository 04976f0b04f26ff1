package io.isthmus.benchmarks.harness;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.isthmus.benchmarks.harness.client.ClientLibrary;
import io.isthmus.benchmarks.harness.client.Workload;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * One harness run: probes the limits, starts both brokers, runs every case of the plan against each, as many times as
 * the plan's repetitions (alternating which broker goes first from case to case and from repetition to repetition, so
 * that a drift in machine load does not favour one), stops them, and writes {@code results.json}, {@code report.md} and
 * the plots into the output directory.
 */
public final class BenchRun {
    private final BenchPlan plan;
    private final Path dir;
    private final Progress progress;

    public BenchRun(final BenchPlan plan, final Path dir) {
        this.plan = plan;
        this.dir = dir;
        this.progress = new Progress(
                plan.cases().stream().mapToInt(c -> c.pairings().size()).sum() * plan.repetitions());
    }

    public Outcome execute() throws IOException, InterruptedException {
        Files.createDirectories(dir);
        final Path logs = Files.createDirectories(dir.resolve("logs"));
        final String started = LocalDateTime.now().format(DateTimeFormatter.ISO_LOCAL_DATE_TIME);
        final MachineInfo machine = MachineInfo.collect();
        Map<String, Object> limits = Map.of();
        if (plan.includes(BenchPlan.LIMITS)) {
            progress.note("measuring memcpy and loopback TCP bandwidth");
            limits = new LinkedHashMap<>(PhysicalLimits.measure(plan.limitSeconds()));
            // Not a limit: the isthmus log itself, measured next to memcpy so that its fraction is one run's.
            limits.put("log_append_64k_gb_per_s", LogAppendProbe.measure(plan.limitSeconds()) / 1e9);
            progress.note(String.format(
                    Locale.ROOT,
                    "limits: memcpy %.2f GB/s, TCP loopback %.2f GB/s; isthmus log append (64 KiB batches) %.2f GB/s",
                    limits.get("memcpy_gb_per_s"),
                    limits.get("tcp_loopback_gb_per_s"),
                    limits.get("log_append_64k_gb_per_s")));
        }
        final Path dataRoot = dataRoot();
        final List<CaseOutcome> outcomes = new ArrayList<>();
        final Map<String, Object> brokerTotals = new LinkedHashMap<>();
        try {
            if (!plan.cases().isEmpty()) {
                runCases(dataRoot, logs, outcomes, brokerTotals);
            }
        } finally {
            BrokerUnderTest.deleteTree(dataRoot);
        }
        final List<String> plots = plots(outcomes);
        final List<String> settings = settings(dataRoot);
        final Report report = new Report(plan.quick(), started, machine, limits, outcomes, plots, settings);
        final String resultsPath = dir.toString();
        final String markdown = report.markdown(resultsPath);
        Files.writeString(dir.resolve("report.md"), markdown);
        final Map<String, Object> json = new LinkedHashMap<>();
        json.put("started", started);
        json.put("machine", machine.asMap());
        json.put("plan", plan.describe());
        json.put("pairings", Pairing.ALL.stream().map(Pairing::key).toList());
        json.put("settings", settings);
        json.put("broker_jvm_options", BrokerSettings.brokerJvmOptions());
        json.put("client_jvm_options", BrokerSettings.clientJvmOptions());
        json.put("limits", limits);
        json.put("brokers", brokerTotals);
        json.put("cases", outcomes.stream().map(CaseOutcome::asMap).toList());
        json.put("plots", Plots.describe());
        json.put("summary", report.summary());
        json.put("summary_line", report.summaryLine(resultsPath));
        new ObjectMapper()
                .enable(SerializationFeature.INDENT_OUTPUT)
                .writeValue(dir.resolve("results.json").toFile(), json);
        progress.note("wrote " + dir.resolve("report.md") + " and results.json");
        return new Outcome(markdown, report.summaryLine(resultsPath), outcomes);
    }

    /**
     * The cases on one broker of each kind first, then those on a cluster of each kind: the brokers of one size run
     * while their cases do, and are stopped before the next size starts, so that idle brokers never share the machine
     * with a measurement.
     */
    private void runCases(
            final Path dataRoot,
            final Path logs,
            final List<CaseOutcome> outcomes,
            final Map<String, Object> brokerTotals)
            throws IOException, InterruptedException {
        final Map<Integer, List<BenchCase>> bySize = new TreeMap<>();
        for (final BenchCase benchCase : plan.cases()) {
            bySize.computeIfAbsent(benchCase.brokers(), size -> new ArrayList<>())
                    .add(benchCase);
        }
        int index = 0;
        for (final Map.Entry<Integer, List<BenchCase>> setup : bySize.entrySet()) {
            runOnBrokers(setup.getKey(), setup.getValue(), index, dataRoot, logs, outcomes, brokerTotals);
            index += setup.getValue().size();
        }
    }

    /** Starts {@code size} brokers of each kind, warms them up, runs {@code cases} on them and stops them. */
    private void runOnBrokers(
            final int size,
            final List<BenchCase> cases,
            final int firstIndex,
            final Path dataRoot,
            final Path logs,
            final List<CaseOutcome> outcomes,
            final Map<String, Object> brokerTotals)
            throws IOException, InterruptedException {
        final Map<BrokerKind, BrokerUnderTest> brokers = new EnumMap<>(BrokerKind.class);
        final Map<BrokerKind, CaseRunner> runners = new EnumMap<>(BrokerKind.class);
        final String what = size == 1 ? "broker" : "cluster of " + size + " brokers";
        try {
            for (final BrokerKind kind : BrokerKind.values()) {
                progress.note("starting " + kind.label() + " " + what);
                final long start = System.nanoTime();
                final BrokerUnderTest broker = BrokerUnderTest.start(kind, size, dataRoot, logs);
                brokers.put(kind, broker);
                runners.put(kind, new CaseRunner(broker, logs));
                final Map<String, Object> totals = new LinkedHashMap<>();
                totals.put("brokers", size);
                totals.put("startup_s", (System.nanoTime() - start) / 1e9);
                totals.put("pids", broker.pids());
                totals.put("data_dir", broker.dataDir().toString());
                brokerTotals.put(totalsKey(kind, size), totals);
                progress.note(String.format(
                        Locale.ROOT,
                        "%s %s up on %s in %.1f s",
                        kind.label(),
                        what,
                        broker.bootstrap(),
                        (System.nanoTime() - start) / 1e9));
            }
            for (final BrokerKind kind : BrokerKind.values()) {
                progress.note("warming up the " + kind.label() + " " + what + " (kafka-clients, results discarded)");
                final String failure = runners.get(kind).warmUp(plan.quick() ? 200_000 : 2_000_000);
                if (failure != null) {
                    progress.note(kind.label() + " " + what + " warmup failed: " + failure);
                }
            }
            int index = firstIndex;
            for (final BenchCase benchCase : cases) {
                final List<Map<Pairing, Map<String, Object>>> repetitions = new ArrayList<>();
                for (int repetition = 0; repetition < plan.repetitions(); repetition++) {
                    final List<BrokerKind> order = (index + repetition) % 2 == 0
                            ? List.of(BrokerKind.ISTHMUS, BrokerKind.KAFKA)
                            : List.of(BrokerKind.KAFKA, BrokerKind.ISTHMUS);
                    repetitions.add(runOnce(benchCase, order, runners, repetition));
                }
                index++;
                outcomes.add(new CaseOutcome(benchCase, repetitions));
            }
        } finally {
            for (final BrokerKind kind : BrokerKind.values()) {
                final CaseRunner runner = runners.get(kind);
                if (runner != null) {
                    runner.close();
                }
                final BrokerUnderTest broker = brokers.get(kind);
                if (broker != null) {
                    @SuppressWarnings("unchecked")
                    final Map<String, Object> totals = (Map<String, Object>) brokerTotals.get(totalsKey(kind, size));
                    totals.put("cpu_s_total", broker.cpuTime().toMillis() / 1000.0);
                    broker.close();
                }
            }
        }
    }

    /** The key of a broker setup in results.json: {@code isthmus}, {@code kafka}; {@code isthmus-x3} for a cluster. */
    private static String totalsKey(final BrokerKind kind, final int size) {
        return size == 1 ? kind.label() : kind.label() + "-x" + size;
    }

    /** One repetition of {@code benchCase}: every pairing, brokers in {@code order}. */
    private Map<Pairing, Map<String, Object>> runOnce(
            final BenchCase benchCase,
            final List<BrokerKind> order,
            final Map<BrokerKind, CaseRunner> runners,
            final int repetition)
            throws IOException, InterruptedException {
        final String suffix = plan.repetitions() > 1 ? " (" + (repetition + 1) + "/" + plan.repetitions() + ")" : "";
        final Map<Pairing, Map<String, Object>> results = new LinkedHashMap<>();
        for (final BrokerKind kind : order) {
            final List<ClientLibrary> clients = benchCase.clientsOn(kind);
            if (clients.isEmpty()) {
                continue;
            }
            runners.get(kind).run(benchCase, clients, new CaseRunner.RunListener() {
                @Override
                public void begin(final ClientLibrary client) {
                    progress.begin(new Pairing(client, kind).key() + " " + benchCase.id() + suffix);
                }

                @Override
                public void end(final ClientLibrary client, final Map<String, Object> result) {
                    results.put(new Pairing(client, kind), result);
                    progress.end(headline(benchCase, result));
                }
            });
        }
        return results;
    }

    private static String headline(final BenchCase benchCase, final Map<String, Object> result) {
        if (result.containsKey("error")) {
            return "FAILED: " + result.get("error");
        }
        final String[] keys = CaseOutcome.headlineKeys(benchCase.group());
        final StringBuilder text = new StringBuilder();
        for (final String key : keys) {
            if (result.get(key) instanceof Number number) {
                text.append(String.format(Locale.ROOT, "%s=%.2f ", key, number.doubleValue()));
            }
        }
        if (result.get("broker_cpu_s") instanceof Number cpu) {
            text.append(String.format(Locale.ROOT, "broker_cpu_s=%.2f", cpu.doubleValue()));
        }
        return text.toString().trim();
    }

    private List<String> plots(final List<CaseOutcome> outcomes) throws IOException {
        System.setProperty("java.awt.headless", "true");
        final List<String> plots = new ArrayList<>();
        addIfWritten(plots, Plots.throughputVsRecordSize(outcomes, dir));
        addIfWritten(
                plots,
                Plots.latencyCdf(
                        outcomes,
                        BenchPlan.PRODUCE_LATENCY,
                        "Produce latency CDF, unbatched (linger.ms=0, 1 in flight, 100 B records)",
                        dir));
        addIfWritten(
                plots,
                Plots.latencyCdf(
                        outcomes,
                        BenchPlan.E2E_LATENCY,
                        "End-to-end latency CDF at a fixed offered rate (100 B records)",
                        dir));
        addIfWritten(plots, Plots.fanOutScaling(outcomes, dir));
        return plots;
    }

    private static void addIfWritten(final List<String> plots, final String plot) {
        if (plot != null) {
            plots.add(plot);
        }
    }

    private List<String> settings(final Path dataRoot) {
        return List.of(
                "Brokers: isthmus (this repository, `BrokerMain`) and Apache Kafka 4.4.0 (KRaft, broker and controller"
                        + " in one process, `KafkaBrokerMain`), each in its own JVM, one at a time per case, both"
                        + " running for the whole run. Before the first case each broker is warmed up: kafka-clients"
                        + " produces records of 100 B to a topic of its own and reads them back, figures discarded.",
                "One broker each on 127.0.0.1, replication factor 1 for every topic (Kafka's internal topics"
                        + " included), a fresh topic per case, deleted after it.",
                "Replicated cases (the " + BenchPlan.REPLICATED + " group) run last, on " + BenchPlan.REPLICATED_BROKERS
                        + " brokers of each kind started once the single brokers have stopped: each broker its own JVM"
                        + " with the options below, every one also a voter of the metadata quorum (isthmus:"
                        + " process.roles=broker,controller on Apache Ratis, as `./isthmus cluster` runs it; Kafka:"
                        + " KRaft combined mode), default.replication.factor=" + BenchPlan.REPLICATED_BROKERS
                        + " and min.insync.replicas=" + BrokerUnderTest.CLUSTER_MIN_INSYNC + " on every broker, each"
                        + " topic with a replica on every broker, producers acks=all. Each cluster is warmed up as a"
                        + " single broker is; broker CPU there is the sum over its " + BenchPlan.REPLICATED_BROKERS
                        + " brokers. Replication over TCP on both (isthmus followers fetch as Kafka's do).",
                "Log directories on the same file system for both: " + dataRoot.getParent()
                        + (dataRoot.startsWith("/dev/shm") ? " (tmpfs)" : " (no tmpfs here)") + ".",
                "Flush: neither broker forces writes (isthmus: flush.messages/flush.ms unset; Kafka:"
                        + " log.flush.interval.* unset). Both rely on the page cache, which survives a broker crash.",
                "Segments 1 GiB (both defaults); threads: each broker's defaults (isthmus one event loop per core;"
                        + " Kafka 3 network and 8 I/O threads).",
                "Broker JVM options (both): `" + String.join(" ", BrokerSettings.brokerJvmOptions()) + "`.",
                "Clients: kafka-clients 4.4.0 and the isthmus client (this repository, over TCP), one JVM per"
                        + " workload run (`ClientRunnerMain`), options `"
                        + String.join(" ", BrokerSettings.clientJvmOptions()) + "`. Rows: the isthmus client on the"
                        + " isthmus broker, kafka-clients on the isthmus broker, kafka-clients on Kafka, and (full run,"
                        + " produce and consume) the isthmus client on Kafka; idle fetch runs kafka-clients only (the"
                        + " isthmus consumer counts no fetch requests), and so do transactions (see below).",
                "Each client library with its recommended settings. kafka-clients: "
                        + ClientLibrary.KAFKA_CLIENTS.recommendedSettings() + ". isthmus client: "
                        + ClientLibrary.ISTHMUS.recommendedSettings() + ".",
                "Both producers: no compression, idempotence on exactly with acks=all (the cases use acks=1,"
                        + " transactions acks=all);"
                        + " latency producers linger.ms=0, max.in.flight=1, each send waited for (kafka-clients:"
                        + " send().get(); isthmus: sendAsync().get()). Throughput sends go through each library's"
                        + " cheapest completion path: the isthmus producer's per-batch DeliveryListener (nothing"
                        + " allocated per record), one shared Callback for kafka-clients.",
                "Consumers: assign() to all partitions from the beginning, no group, CRC checks on; consume"
                        + " throughput preloads the topic with kafka-clients once per broker and repetition and lets"
                        + " each client read it (the preload writes its records plus one warmup round of a tenth"
                        + " of them, at most 100,000): whole passes over the topic, rewound after each, until at least "
                        + Workload.WARMUP.toSeconds() + " s of warmup have gone by, then one more pass, timed from the"
                        + " poll that reaches its first tenth to its last record. Produce throughput warms up for at"
                        + " least " + Workload.WARMUP.toSeconds() + " s too (rounds of a tenth of the records, at most"
                        + " 100,000, each flushed or committed) before the measured records. The isthmus consumer runs"
                        + " its"
                        + " allocation-free poll(handler, limit, timeout), reading each value's size and first 8 bytes"
                        + " in place; kafka-clients' poll(Duration) materialises byte[] values.",
                "Flink: a local Flink 2.3 in the client JVM runs source -> map -> discarding sink over the preloaded"
                        + " topic, bounded at its end, one slot per partition; IsthmusSource (transport=tcp,"
                        + " max.partition.fetch.bytes=4 MiB, a deserializer reading the value's first 8 bytes in place)"
                        + " for the isthmus client, Flink's KafkaSource (flink-connector-kafka, its defaults, a"
                        + " deserializer reading them from kafka-clients' byte[]) for kafka-clients; records are counted"
                        + " in the map, the first tenth is warmup.",
                "Spark: a local Spark 4.2 (local[2]) in a client JVM of the benchmarks-spark module's class path"
                        + " runs readStream -> groupBy(key).count() -> noop sink in update mode over the preloaded topic"
                        + " with Trigger.AvailableNow and maxOffsetsPerTrigger of a twentieth of the records (the preload"
                        + " has null keys: one group); format(\"isthmus\") (transport=tcp, max.partition.fetch.bytes=4"
                        + " MiB) for the isthmus client, Spark's format(\"kafka\") (spark-sql-kafka-0-10 4.2.0, its"
                        + " defaults) for kafka-clients. The first micro-batch is warmup; records/s runs from its end"
                        + " to the last one's, and the micro-batch time is the median trigger time of the others.",
                "Transactions: kafka-clients' transactional producer (a transactional.id of its own per client JVM,"
                        + " initTransactions() before the warmup, acks=all, so idempotent) commits a transaction per "
                        + BenchPlan.TRANSACTION_RECORDS + " records: beginTransaction(), "
                        + BenchPlan.TRANSACTION_RECORDS + " sends with the shared Callback, commitTransaction(); the"
                        + " warmup runs transactions too and the clock stops when the last commit returned. The"
                        + " read_committed consume case preloads its topic with the same transactional producer and"
                        + " reads it with isolation.level=read_committed, crossing a commit marker every "
                        + BenchPlan.TRANSACTION_RECORDS + " records; the consumer must deliver exactly the preloaded"
                        + " count. kafka-clients on both brokers only: the isthmus client in this tree has no"
                        + " transactional producer and no read_committed consumer yet.",
                "CPU time: utime+stime from /proc/<pid>/stat, sampled when the client prints its phase markers,"
                        + " so only the measured part of a workload counts. Heap bytes per record: HotSpot's"
                        + " per-thread allocation counters (ThreadMXBean.getThreadAllocatedBytes) in the client JVM,"
                        + " after warmup, of the sending (produce) or polling (consume) thread, and of all threads.",
                plan.repetitions() == 1
                        ? "Cases alternate which broker runs first; each pairing runs once (no repetitions): compare"
                                + " ratios, and repeat a run before quoting a number."
                        : "Each pairing runs " + plan.repetitions() + " times; the order of the brokers alternates"
                                + " from case to case and from repetition to repetition. Figures are medians over the"
                                + " repetitions; ratios are medians of the repetitions' own ratios (pairings of one"
                                + " repetition run side by side), with their range.");
    }

    private static Path dataRoot() throws IOException {
        final Path shm = Path.of("/dev/shm");
        if (Files.isDirectory(shm) && Files.isWritable(shm)) {
            return Files.createTempDirectory(shm, "isthmus-bench-");
        }
        return Files.createTempDirectory("isthmus-bench-");
    }

    /** The run's report, summary line, and which cases failed. */
    public record Outcome(String markdown, String summaryLine, List<CaseOutcome> outcomes) {
        public List<io.isthmus.benchmarks.harness.BenchCase> failedCases() {
            final List<BenchCase> failed = new ArrayList<>();
            for (final CaseOutcome outcome : outcomes) {
                for (final Pairing pairing : outcome.results().keySet()) {
                    if (outcome.of(pairing).containsKey("error")) {
                        failed.add(outcome.benchCase());
                        break;
                    }
                }
            }
            return failed;
        }
    }
}
