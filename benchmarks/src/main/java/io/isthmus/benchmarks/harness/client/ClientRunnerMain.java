package io.isthmus.benchmarks.harness.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The client side of the harness, one workload per JVM: runs it and prints one line {@value #RESULT_PREFIX}{@code
 * {json}}, with an {@code error} field and exit status 1 if it failed. Never run by hand in the normal course: {@code
 * BenchMain} starts it.
 */
@Command(name = "bench-client", mixinStandardHelpOptions = true, description = "Runs one benchmark workload.")
public final class ClientRunnerMain implements Callable<Integer> {
    public static final String RESULT_PREFIX = "result ";

    @Option(
            names = "--workload",
            required = true,
            description =
                    "produce, consume, produce-latency, e2e-latency, idle-fetch, fan-out, flink-source, spark-query")
    private String workload;

    @Option(
            names = "--client",
            defaultValue = "kafka-clients",
            description = "Client library: kafka-clients or isthmus (default ${DEFAULT-VALUE}).")
    private String client;

    @Option(names = "--bootstrap", required = true)
    private String bootstrap;

    @Option(names = "--topic", required = true)
    private String topic;

    @Option(names = "--partitions", defaultValue = "1")
    private int partitions;

    @Option(names = "--records", defaultValue = "100000")
    private long records;

    @Option(names = "--record-bytes", defaultValue = "100")
    private int recordBytes;

    @Option(names = "--acks", defaultValue = "1")
    private String acks;

    @Option(names = "--linger-ms", defaultValue = "-1", description = "Default: the client library's recommended.")
    private int lingerMs;

    @Option(names = "--batch-bytes", defaultValue = "-1", description = "Default: the client library's recommended.")
    private int batchBytes;

    @Option(names = "--max-in-flight", defaultValue = "5")
    private int maxInFlight;

    @Option(names = "--fetch-max-wait-ms", defaultValue = "500")
    private int fetchMaxWaitMs;

    @Option(names = "--consumers", defaultValue = "1")
    private int consumers;

    @Option(names = "--rate", defaultValue = "1000", description = "Offered records per second (e2e-latency).")
    private int rate;

    @Option(names = "--duration-s", defaultValue = "5")
    private double durationSeconds;

    @Option(
            names = "--warmup-ms",
            defaultValue = "-1",
            description = "Throughput workloads: warm up at least this long before the clock starts (default: "
                    + "Workload.WARMUP); 0 for a preload, which then writes one warmup round.")
    private long warmupMs;

    @Option(names = "--timeout-s", defaultValue = "300")
    private int timeoutSeconds;

    @Option(
            names = "--transaction-records",
            defaultValue = "0",
            paramLabel = "N",
            description = "Producer: a transaction per N records, committed (needs --acks all); 0: no transactions"
                    + " (default ${DEFAULT-VALUE}).")
    private int transactionRecords;

    @Option(
            names = "--isolation",
            defaultValue = ClientSettings.READ_UNCOMMITTED,
            description = "Consumer isolation.level: read_committed or read_uncommitted (default ${DEFAULT-VALUE}).")
    private String isolation;

    public static void main(final String[] args) {
        System.exit(new CommandLine(new ClientRunnerMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        final ObjectMapper json = new ObjectMapper();
        try {
            // Inside the try: settings the runner refuses (an unknown isolation level, transactions without
            // acks=all) are reported as the run's error line like any other failure.
            final ClientLibrary library = ClientLibrary.ofLabel(client);
            final WorkloadContext context = new WorkloadContext(
                    library,
                    new ClientSettings(
                            bootstrap,
                            topic,
                            partitions,
                            acks,
                            lingerMs >= 0 ? lingerMs : library.recommendedLingerMs(),
                            batchBytes > 0 ? batchBytes : library.recommendedBatchBytes(),
                            maxInFlight,
                            fetchMaxWaitMs,
                            transactionRecords,
                            isolation),
                    records,
                    recordBytes,
                    consumers,
                    rate,
                    durationSeconds,
                    warmupMs >= 0 ? Duration.ofMillis(warmupMs) : Workload.WARMUP,
                    Instant.now().plus(Duration.ofSeconds(timeoutSeconds)));
            final Map<String, Object> result = new LinkedHashMap<>();
            result.put("workload", workload);
            result.put("client", client);
            result.putAll(workload(workload).run(context));
            System.out.println(RESULT_PREFIX + json.writeValueAsString(result));
            return 0;
        } catch (final Exception e) {
            final Map<String, Object> failure = new LinkedHashMap<>();
            failure.put("workload", workload);
            failure.put("client", client);
            failure.put("error", e.toString() + (e.getCause() != null ? " caused by " + e.getCause() : ""));
            System.out.println(RESULT_PREFIX + json.writeValueAsString(failure));
            return 1;
        }
    }

    static Workload workload(final String name) {
        return switch (name) {
            case "produce" -> new ProduceThroughputWorkload();
            case "consume" -> new ConsumeThroughputWorkload();
            case "produce-latency" -> new ProduceLatencyWorkload();
            case "e2e-latency" -> new EndToEndLatencyWorkload();
            case "idle-fetch" -> new IdleFetchWorkload();
            case "fan-out" -> new FanOutWorkload();
            case "flink-source" -> new FlinkSourceWorkload();
            case SPARK_QUERY -> sparkWorkload();
            default -> throw new IllegalArgumentException("unknown workload: " + name);
        };
    }

    /** The Spark workload's name; it runs in a JVM of the benchmarks-spark module's class path (see below). */
    public static final String SPARK_QUERY = "spark-query";

    /**
     * The Spark workload lives in the benchmarks-spark module, which depends on this one: Spark and Flink clash on
     * Kryo and slf4j, so the harness starts the Spark cases' client JVM with that module's class path, and this
     * runner finds the workload there by name.
     */
    private static Workload sparkWorkload() {
        final String name = "io.isthmus.benchmarks.harness.client.SparkQueryWorkload";
        try {
            return (Workload) Class.forName(name).getDeclaredConstructor().newInstance();
        } catch (final ReflectiveOperationException e) {
            throw new IllegalStateException(
                    name + " is not on this JVM's class path (the benchmarks-spark module's)", e);
        }
    }
}
