package io.isthmus.benchmarks.harness;

import io.isthmus.benchmarks.harness.client.ClientLibrary;
import io.isthmus.benchmarks.harness.client.ClientRunnerMain;
import io.isthmus.benchmarks.harness.client.ClientSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The cases of a run: {@code --quick} (a smoke run under three minutes on two cores: fewer records, fewer
 * configurations) or the full run the README reports. Groups, as {@code --only} names them: {@value #PRODUCE},
 * {@value #CONSUME}, {@value #PRODUCE_LATENCY}, {@value #E2E_LATENCY}, {@value #IDLE_FETCH}, {@value #FAN_OUT},
 * {@value #FLINK}, {@value #SPARK}, {@value #TRANSACTIONS}, {@value #REPLICATED} (three brokers of each kind,
 * replication factor 3, acks=all), and {@value #LIMITS} (the physical probes, which run in the harness itself).
 */
public final class BenchPlan {
    public static final String PRODUCE = "produce";
    public static final String CONSUME = "consume";
    public static final String PRODUCE_LATENCY = "produce-latency";
    public static final String E2E_LATENCY = "e2e-latency";
    public static final String IDLE_FETCH = "idle-fetch";
    public static final String FAN_OUT = "fan-out";
    public static final String LIMITS = "limits";
    public static final String FLINK = "flink";
    public static final String SPARK = "spark";
    public static final String TRANSACTIONS = "transactions";
    public static final String REPLICATED = "replicated";
    public static final List<String> GROUPS = List.of(
            PRODUCE,
            CONSUME,
            PRODUCE_LATENCY,
            E2E_LATENCY,
            IDLE_FETCH,
            FAN_OUT,
            FLINK,
            SPARK,
            TRANSACTIONS,
            REPLICATED,
            LIMITS);

    /** Brokers of each kind in the {@value #REPLICATED} group's clusters, and replicas of its topics. */
    public static final int REPLICATED_BROKERS = 3;

    /** Records per transaction in the {@value #TRANSACTIONS} group: a commit (and its markers) per 1,000 records. */
    public static final int TRANSACTION_RECORDS = 1_000;

    /** Repetitions of every pairing in a full run: the fewest that give a median and a spread. */
    public static final int FULL_REPETITIONS = 3;

    private final boolean quick;
    private final Set<String> groups;
    private final int repetitions;
    private final List<BenchCase> cases;

    private BenchPlan(final boolean quick, final Set<String> groups, final int repetitions) {
        if (repetitions < 1) {
            throw new IllegalArgumentException("repetitions must be at least 1: " + repetitions);
        }
        this.quick = quick;
        this.groups = groups;
        this.repetitions = repetitions;
        this.cases = build();
    }

    /**
     * The plan for {@code quick} or the full run, with only the named groups ({@code null} or empty: all), each pairing
     * run once (quick) or {@value #FULL_REPETITIONS} times.
     */
    public static BenchPlan of(final boolean quick, final List<String> only) {
        return of(quick, only, quick ? 1 : FULL_REPETITIONS);
    }

    /** {@link #of(boolean, List)} with every pairing run {@code repetitions} times. */
    public static BenchPlan of(final boolean quick, final List<String> only, final int repetitions) {
        if (only == null || only.isEmpty()) {
            return new BenchPlan(quick, Set.copyOf(GROUPS), repetitions);
        }
        for (final String group : only) {
            if (!GROUPS.contains(group)) {
                throw new IllegalArgumentException(
                        "unknown group: " + group + " (known: " + String.join(", ", GROUPS) + ")");
            }
        }
        return new BenchPlan(quick, Set.copyOf(only), repetitions);
    }

    public boolean quick() {
        return quick;
    }

    /** How many times each pairing of each case runs. */
    public int repetitions() {
        return repetitions;
    }

    public boolean includes(final String group) {
        return groups.contains(group);
    }

    public List<BenchCase> cases() {
        return cases;
    }

    /** Seconds each physical probe runs. */
    public double limitSeconds() {
        return quick ? 1.0 : 3.0;
    }

    /** The settings that vary with the plan, for results.json. */
    public Map<String, Object> describe() {
        final Map<String, Object> map = new LinkedHashMap<>();
        map.put("quick", quick);
        map.put("repetitions", repetitions);
        map.put("groups", GROUPS.stream().filter(groups::contains).toList());
        for (final ClientLibrary library : ClientLibrary.values()) {
            map.put("recommended_settings_" + library.label(), library.recommendedSettings());
        }
        map.put("idempotence", "on exactly with acks=all, for both client libraries");
        map.put("latency_producer", "linger.ms=0 max.in.flight.requests.per.connection=1 acks=1");
        map.put(
                "replicated",
                REPLICATED_BROKERS + " brokers of each kind, every one also a metadata voter, replication factor "
                        + REPLICATED_BROKERS + ", min.insync.replicas=" + BrokerUnderTest.CLUSTER_MIN_INSYNC
                        + ", acks=all");
        map.put("consumer", "assign() all partitions from the beginning, no group, check.crcs=true");
        map.put(
                "transactions",
                "a transactional.id per producer JVM, acks=all, a committed transaction per " + TRANSACTION_RECORDS
                        + " records (preloads included); consumers isolation.level=read_committed");
        return map;
    }

    /** Produce and consume: both stacks, kafka-clients on isthmus, and (full run) the isthmus client on Kafka. */
    private List<Pairing> throughputPairings() {
        return quick
                ? List.of(Pairing.ISTHMUS_STACK, Pairing.KAFKA_CLIENTS_ON_ISTHMUS, Pairing.KAFKA_STACK)
                : List.of(
                        Pairing.ISTHMUS_STACK,
                        Pairing.KAFKA_CLIENTS_ON_ISTHMUS,
                        Pairing.KAFKA_STACK,
                        Pairing.ISTHMUS_CLIENT_ON_KAFKA);
    }

    /**
     * Produce and consume add the isthmus client over shared memory (producer and consumer), on the isthmus broker
     * beside its TCP row.
     */
    private List<Pairing> withSharedMemoryPairings() {
        final List<Pairing> pairings = new ArrayList<>(throughputPairings());
        pairings.add(Pairing.ISTHMUS_SHM_STACK);
        return List.copyOf(pairings);
    }

    /** Both stacks and kafka-clients on isthmus: the headline ratio and the broker-only ratio. */
    private static final List<Pairing> STACKS_AND_BROKER_ONLY =
            List.of(Pairing.ISTHMUS_STACK, Pairing.KAFKA_CLIENTS_ON_ISTHMUS, Pairing.KAFKA_STACK);

    /** Idle fetch measures the broker per fetch request, which only kafka-clients counts: kafka-clients on both. */
    private static final List<Pairing> BROKER_ONLY = List.of(Pairing.KAFKA_CLIENTS_ON_ISTHMUS, Pairing.KAFKA_STACK);

    /** Transactions: both stacks and kafka-clients on the isthmus broker (the stack and the broker-only ratio). */
    static final List<Pairing> TRANSACTION_PAIRINGS = STACKS_AND_BROKER_ONLY;

    private List<BenchCase> build() {
        final List<BenchCase> all = new ArrayList<>();
        final int[] sizes = {100, 1024, 16384};
        final int[] partitionCounts = quick ? new int[] {1} : new int[] {1, 4};
        final String[] acksValues = quick ? new String[] {"1"} : new String[] {"1", "all"};
        if (groups.contains(PRODUCE)) {
            for (final int size : sizes) {
                for (final int partitions : partitionCounts) {
                    for (final String acks : acksValues) {
                        all.add(throughputCase(PRODUCE, "produce", size, partitions, acks, 0));
                    }
                }
            }
        }
        if (groups.contains(CONSUME)) {
            final int[] consumeSizes = quick ? new int[] {100, 1024} : sizes;
            for (final int size : consumeSizes) {
                for (final int partitions : partitionCounts) {
                    all.add(throughputCase(CONSUME, "consume", size, partitions, "1", throughputRecords(size)));
                }
            }
        }
        if (groups.contains(FLINK)) {
            // The same Flink job with IsthmusSource and with KafkaSource, one slot per partition.
            for (final int partitions : partitionCounts) {
                all.add(throughputCase(FLINK, "flink-source", 100, partitions, "1", throughputRecords(100)));
            }
        }
        if (groups.contains(SPARK)) {
            all.add(sparkCase());
        }
        if (groups.contains(TRANSACTIONS)) {
            // Transactional produce, and read_committed consume of a topic preloaded transactionally.
            for (final int partitions : partitionCounts) {
                all.add(transactionCase("txn-produce", "produce", partitions, 0));
            }
            all.add(transactionCase("txn-consume", "consume", 1, throughputRecords(100)));
        }
        if (groups.contains(PRODUCE_LATENCY)) {
            for (final String acks : acksValues) {
                all.add(produceLatencyCase(PRODUCE_LATENCY, "produce-latency-100B-acks" + acks, acks));
            }
        }
        if (groups.contains(REPLICATED)) {
            // Three brokers of each kind, a replica of the topic on every one, acks=all with two in sync.
            all.add(replicatedProduceCase());
            all.add(produceLatencyCase(REPLICATED, "replicated-produce-latency-100B-acksall", "all"));
        }
        if (groups.contains(E2E_LATENCY)) {
            final int[] rates = quick ? new int[] {1_000} : new int[] {1_000, 10_000};
            final double seconds = quick ? 2 : 15;
            for (final int rate : rates) {
                final Map<String, Object> params = new LinkedHashMap<>();
                params.put("record_bytes", 100);
                params.put("rate_per_s", rate);
                params.put("seconds", seconds);
                all.add(new BenchCase(
                        "e2e-latency-100B-rate" + rate,
                        E2E_LATENCY,
                        "e2e-latency",
                        params,
                        1,
                        List.of(
                                "--record-bytes", "100",
                                "--rate", Integer.toString(rate),
                                "--duration-s", Double.toString(seconds),
                                "--acks", "1",
                                "--fetch-max-wait-ms", "500"),
                        0,
                        Duration.ofSeconds(180),
                        STACKS_AND_BROKER_ONLY,
                        1));
            }
        }
        if (groups.contains(IDLE_FETCH)) {
            final double seconds = quick ? 2 : 10;
            final List<int[]> variants = quick
                    ? List.of(new int[] {4, 0})
                    : List.of(new int[] {1, 0}, new int[] {4, 0}, new int[] {16, 0}, new int[] {16, 500});
            for (final int[] variant : variants) {
                final Map<String, Object> params = new LinkedHashMap<>();
                params.put("consumers", variant[0]);
                params.put("fetch_max_wait_ms", variant[1]);
                params.put("seconds", seconds);
                all.add(new BenchCase(
                        "idle-fetch-c" + variant[0] + "-wait" + variant[1],
                        IDLE_FETCH,
                        "idle-fetch",
                        params,
                        1,
                        List.of(
                                "--consumers", Integer.toString(variant[0]),
                                "--fetch-max-wait-ms", Integer.toString(variant[1]),
                                "--duration-s", Double.toString(seconds)),
                        0,
                        Duration.ofSeconds(180),
                        BROKER_ONLY,
                        1));
            }
        }
        if (groups.contains(FAN_OUT)) {
            final int[] consumerCounts = quick ? new int[] {1, 4} : new int[] {1, 4, 16};
            final int records = quick ? 20_000 : 200_000;
            for (final int consumers : consumerCounts) {
                final Map<String, Object> params = new LinkedHashMap<>();
                params.put("consumers", consumers);
                params.put("record_bytes", 1024);
                params.put("records", records);
                all.add(new BenchCase(
                        "fan-out-1KiB-c" + consumers,
                        FAN_OUT,
                        "fan-out",
                        params,
                        1,
                        List.of(
                                "--consumers",
                                Integer.toString(consumers),
                                "--records",
                                Integer.toString(records),
                                "--record-bytes",
                                "1024",
                                "--acks",
                                "1"),
                        0,
                        Duration.ofSeconds(300),
                        STACKS_AND_BROKER_ONLY,
                        1));
            }
        }
        return List.copyOf(all);
    }

    /**
     * Unbatched produce latency, 100 B records, one partition: on one broker for {@value #PRODUCE_LATENCY}, on three
     * with a replica each for {@value #REPLICATED}.
     */
    private BenchCase produceLatencyCase(final String group, final String id, final String acks) {
        final boolean replicated = group.equals(REPLICATED);
        final int records = quick ? 2_000 : 20_000;
        final double seconds = quick ? 4 : replicated ? 30 : 60;
        final Map<String, Object> params = new LinkedHashMap<>();
        params.put("record_bytes", 100);
        if (replicated) {
            params.put("brokers", REPLICATED_BROKERS);
        }
        params.put("acks", acks);
        params.put("records", records);
        params.put("max_seconds", seconds);
        return new BenchCase(
                id,
                group,
                "produce-latency",
                params,
                1,
                List.of(
                        "--records",
                        Integer.toString(records),
                        "--record-bytes",
                        "100",
                        "--acks",
                        acks,
                        "--duration-s",
                        Double.toString(seconds)),
                0,
                Duration.ofSeconds(180),
                replicated ? STACKS_AND_BROKER_ONLY : throughputPairings(),
                replicated ? REPLICATED_BROKERS : 1);
    }

    /**
     * The {@value #REPLICATED} throughput case: 1 KiB records into three partitions (a leader on each broker once
     * the cluster spreads them), acks=all, each client's recommended batching.
     */
    private BenchCase replicatedProduceCase() {
        final int size = 1024;
        final int partitions = REPLICATED_BROKERS;
        final long records = throughputRecords(size);
        final Map<String, Object> params = new LinkedHashMap<>();
        params.put("record_bytes", size);
        params.put("partitions", partitions);
        params.put("brokers", REPLICATED_BROKERS);
        params.put("acks", "all");
        params.put("records", records);
        return new BenchCase(
                REPLICATED + "-produce-" + sizeLabel(size) + "-p" + partitions + "-acksall",
                REPLICATED,
                "produce",
                params,
                partitions,
                List.of(
                        "--record-bytes", Integer.toString(size),
                        "--partitions", Integer.toString(partitions),
                        "--acks", "all",
                        "--records", Long.toString(records)),
                0,
                Duration.ofSeconds(300),
                STACKS_AND_BROKER_ONLY,
                REPLICATED_BROKERS);
    }

    private BenchCase throughputCase(
            final String group,
            final String workload,
            final int size,
            final int partitions,
            final String acks,
            final long preload) {
        final long records = throughputRecords(size);
        final Map<String, Object> params = new LinkedHashMap<>();
        params.put("record_bytes", size);
        params.put("partitions", partitions);
        if (group.equals(PRODUCE)) {
            params.put("acks", acks);
        }
        params.put("records", records);
        final String id =
                group + "-" + sizeLabel(size) + "-p" + partitions + (group.equals(PRODUCE) ? "-acks" + acks : "");
        final List<String> args = new ArrayList<>(List.of(
                "--record-bytes", Integer.toString(size),
                "--partitions", Integer.toString(partitions),
                "--acks", acks));
        if (preload == 0) {
            // A consume case learns its record count from the preload (warmup records included).
            args.addAll(List.of("--records", Long.toString(records)));
        }
        return new BenchCase(
                id,
                group,
                workload,
                params,
                partitions,
                args,
                preload,
                Duration.ofSeconds(300),
                withSharedMemoryPairings(),
                1);
    }

    /**
     * A case of the {@value #TRANSACTIONS} group, 100 B records, acks=all, a transaction per {@value
     * #TRANSACTION_RECORDS} records: transactional produce ({@code preload} 0), or read_committed consume of a topic
     * that the preload (the produce workload with the same arguments, so transactional too) wrote.
     */
    private BenchCase transactionCase(
            final String stem, final String workload, final int partitions, final long preload) {
        final int size = 100;
        final long records = throughputRecords(size);
        final Map<String, Object> params = new LinkedHashMap<>();
        params.put("record_bytes", size);
        params.put("partitions", partitions);
        params.put("acks", "all");
        params.put("transaction_records", TRANSACTION_RECORDS);
        if (preload > 0) {
            params.put("isolation", ClientSettings.READ_COMMITTED);
        }
        params.put("records", records);
        final List<String> args = new ArrayList<>(List.of(
                "--record-bytes", Integer.toString(size),
                "--partitions", Integer.toString(partitions),
                "--acks", "all",
                "--transaction-records", Integer.toString(TRANSACTION_RECORDS)));
        if (preload == 0) {
            args.addAll(List.of("--records", Long.toString(records)));
        } else {
            args.addAll(List.of("--isolation", ClientSettings.READ_COMMITTED));
        }
        return new BenchCase(
                stem + "-" + sizeLabel(size) + "-p" + partitions,
                TRANSACTIONS,
                workload,
                params,
                partitions,
                args,
                preload,
                Duration.ofSeconds(300),
                TRANSACTION_PAIRINGS,
                1);
    }

    /**
     * The {@value #SPARK} case: the same Structured Streaming query (read, count by key) with {@code format("isthmus")}
     * and with Spark's {@code format("kafka")} over one preloaded topic of 100 B records (10,000,000 in a full run), on
     * the same broker; and Spark's Kafka source on Kafka, for the stack ratio.
     */
    private BenchCase sparkCase() {
        final int size = 100;
        final long records = quick ? 200_000 : 10_000_000;
        final Map<String, Object> params = new LinkedHashMap<>();
        params.put("record_bytes", size);
        params.put("partitions", 1);
        params.put("records", records);
        params.put("micro_batches", 20);
        final List<String> args = List.of("--record-bytes", Integer.toString(size), "--partitions", "1", "--acks", "1");
        return new BenchCase(
                SPARK + "-" + sizeLabel(size) + "-p1",
                SPARK,
                ClientRunnerMain.SPARK_QUERY,
                params,
                1,
                args,
                records,
                Duration.ofSeconds(quick ? 300 : 900),
                STACKS_AND_BROKER_ONLY,
                1);
    }

    /** About 20-64 MB per case in a quick run, 200-650 MB in a full one. */
    private long throughputRecords(final int size) {
        return switch (size) {
            case 100 -> quick ? 200_000 : 2_000_000;
            case 1024 -> quick ? 40_000 : 500_000;
            default -> quick ? 3_000 : 40_000;
        };
    }

    static String sizeLabel(final int size) {
        return size % 1024 == 0 ? (size / 1024) + "KiB" : size + "B";
    }
}
