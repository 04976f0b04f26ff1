package io.isthmus.example.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.window;

import io.isthmus.broker.Broker;
import io.isthmus.client.admin.IsthmusAdmin;
import io.isthmus.client.producer.IsthmusProducer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.apache.spark.sql.streaming.Trigger;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./isthmus spark-demo}: starts an isthmus broker in a temporary directory, writes clicks (a user as the key,
 * an amount as the value, one millisecond of event time apart), runs a Structured Streaming query on a local Spark
 * (isthmus source, a tumbling-window count and sum by user, isthmus sink in update mode) until it has read what was
 * there ({@code Trigger.AvailableNow}), then reads the counts back with a batch read and checks that every click was
 * counted exactly once. Ends with one {@code spark-demo: ...} line; exit 0 only if the check passes.
 */
@Command(
        name = "isthmus spark-demo",
        mixinStandardHelpOptions = true,
        description =
                "An embedded broker and a local Spark query: isthmus source, windowed count by key, isthmus sink.")
public final class SparkDemo implements Callable<Integer> {
    /** A multiple of every window size offered, so windows line up with the data. */
    private static final long T0 = 1_700_000_000_000L;

    private static final String CLICKS = "clicks";
    private static final String COUNTS = "click-counts";

    @Option(names = "--records", description = "Clicks to write and count (default ${DEFAULT-VALUE}).")
    private int records = 1_000_000;

    @Option(names = "--users", description = "Distinct users, the query's keys (default ${DEFAULT-VALUE}).")
    private int users = 100;

    @Option(names = "--partitions", description = "Partitions of the clicks topic (default ${DEFAULT-VALUE}).")
    private int partitions = 4;

    @Option(names = "--window-ms", description = "Tumbling window size in ms of event time (default ${DEFAULT-VALUE}).")
    private long windowMs = 10_000;

    @Option(names = "--max-offsets-per-trigger", description = "Bound of each micro-batch (default ${DEFAULT-VALUE}).")
    private long maxOffsetsPerTrigger = 250_000;

    @Option(
            names = "--transport",
            description = "tcp, rdma or auto, for the query's source and sink (default ${DEFAULT-VALUE}).")
    private String transport = "auto";

    public static void main(final String[] args) {
        System.exit(new CommandLine(new SparkDemo()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (T0 % windowMs != 0) {
            throw new CommandLine.ParameterException(
                    new CommandLine(this), "--window-ms must divide " + T0 + ": " + windowMs);
        }
        final Path dir = Files.createTempDirectory("isthmus-spark-demo");
        try {
            return run(dir);
        } finally {
            try (Stream<Path> paths = Files.walk(dir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private int run(final Path dir) throws Exception {
        final Broker broker = Broker.startEmbedded(dir.resolve("logs"), Map.of("num.network.threads", "2"));
        final SparkSession spark = SparkSession.builder()
                .master("local[2]")
                .appName("isthmus spark-demo")
                .config("spark.ui.enabled", "false")
                // Loopback only: the driver binds where the broker listens.
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.driver.host", "127.0.0.1")
                // Adaptive execution does not apply to a streaming aggregation; say so once, here, not in a warning.
                .config("spark.sql.adaptive.enabled", "false")
                .config("spark.sql.shuffle.partitions", Integer.toString(partitions))
                .getOrCreate();
        try (IsthmusAdmin admin = new IsthmusAdmin(broker.bootstrapServers())) {
            admin.createTopic(CLICKS, partitions, (short) 1);
            admin.createTopic(COUNTS, partitions, (short) 1);
            final String bootstrap = broker.bootstrapServers();
            System.out.printf("spark-demo: broker %s, topic %s with %d partitions%n", bootstrap, CLICKS, partitions);

            final long produceStart = System.nanoTime();
            writeClicks(bootstrap);
            System.out.printf(
                    Locale.ROOT,
                    "spark-demo: wrote %,d clicks of %d users in %.2f s%n",
                    records,
                    users,
                    (System.nanoTime() - produceStart) / 1e9);

            final long queryStart = System.nanoTime();
            final StreamingQuery query = windowCounts(spark, bootstrap, dir.resolve("checkpoint"));
            query.awaitTermination();
            final double querySeconds = (System.nanoTime() - queryStart) / 1e9;
            if (query.exception().isDefined()) {
                throw query.exception().get();
            }
            final StreamingQueryProgress[] progress = query.recentProgress();
            final long[] batchMillis = Arrays.stream(progress)
                    .filter(p -> p.numInputRows() > 0)
                    .mapToLong(p -> p.durationMs().get("triggerExecution"))
                    .sorted()
                    .toArray();
            final long rowsRead = Arrays.stream(progress)
                    .mapToLong(StreamingQueryProgress::numInputRows)
                    .sum();
            System.out.printf(
                    Locale.ROOT,
                    "spark-demo: query (isthmus source -> %d ms window count and sum by user -> isthmus sink) read"
                            + " %,d records in %d micro-batches, %.2f s, %,.0f records/s; micro-batch median %d ms,"
                            + " max %d ms%n",
                    windowMs,
                    rowsRead,
                    batchMillis.length,
                    querySeconds,
                    rowsRead / querySeconds,
                    batchMillis.length == 0 ? 0 : batchMillis[batchMillis.length / 2],
                    batchMillis.length == 0 ? 0 : batchMillis[batchMillis.length - 1]);

            final long[] totals = readCounts(spark, bootstrap);
            final long expectedAmount = (long) records * (records - 1) / 2;
            final boolean ok = totals[1] == records && totals[2] == expectedAmount;
            System.out.printf(
                    "spark-demo: %,d window counts read back (the last update of each); clicks counted %,d of %,d,"
                            + " amount %d of %d: %s%n",
                    totals[0],
                    totals[1],
                    records,
                    totals[2],
                    expectedAmount,
                    ok ? "every click exactly once" : "MISMATCH");
            System.out.printf(
                    Locale.ROOT,
                    "spark-demo: records=%d windows=%d counted=%d micro_batches=%d transport=%s query_s=%.2f rec_s=%.0f%n",
                    records,
                    totals[0],
                    totals[1],
                    batchMillis.length,
                    transport,
                    querySeconds,
                    rowsRead / querySeconds);
            return ok ? 0 : 1;
        } finally {
            spark.stop();
            broker.close();
        }
    }

    /** Click i: user i mod users as the key, amount i as the value, timestamp T0 + i. */
    private void writeClicks(final String bootstrapServers) {
        try (IsthmusProducer producer = new IsthmusProducer(Map.of(
                "bootstrap.servers",
                bootstrapServers,
                "transport",
                transport,
                "linger.ms",
                "2",
                "batch.size",
                Integer.toString(256 * 1024)))) {
            for (int i = 0; i < records; i++) {
                final int user = i % users;
                producer.send(
                        CLICKS,
                        user % partitions,
                        T0 + i,
                        ("user-" + user).getBytes(StandardCharsets.UTF_8),
                        Long.toString(i).getBytes(StandardCharsets.UTF_8),
                        null,
                        null);
            }
            producer.flush();
        }
    }

    /**
     * The query the README shows: clicks counted and summed per user and tumbling window, each update written as a
     * record keyed {@code user@windowStart} with the value {@code clicks,amount}.
     */
    private StreamingQuery windowCounts(final SparkSession spark, final String bootstrap, final Path checkpoint)
            throws Exception {
        final Dataset<Row> clicks = spark.readStream()
                .format("isthmus")
                .option("isthmus.bootstrap.servers", bootstrap)
                .option("isthmus.transport", transport)
                .option("subscribe", CLICKS)
                .option("startingOffsets", "earliest")
                .option("maxOffsetsPerTrigger", Long.toString(maxOffsetsPerTrigger))
                .load();
        return clicks.groupBy(window(col("timestamp"), windowMs + " milliseconds"), col("key"))
                .agg(
                        count(lit(1)).as("clicks"),
                        sum(col("value").cast("string").cast("long")).as("amount"))
                .selectExpr(
                        "CONCAT(CAST(key AS STRING), '@', CAST(unix_millis(window.start) AS STRING)) AS key",
                        "CONCAT(CAST(clicks AS STRING), ',', CAST(amount AS STRING)) AS value")
                .writeStream()
                .format("isthmus")
                .outputMode("update")
                .option("isthmus.bootstrap.servers", bootstrap)
                .option("isthmus.transport", transport)
                .option("topic", COUNTS)
                .option("checkpointLocation", checkpoint.toString())
                .trigger(Trigger.AvailableNow())
                .start();
    }

    /**
     * Reads the counts topic with a batch read and keeps each window's last update (a key's updates share a partition,
     * in order): {windows, clicks, amount}.
     */
    private static long[] readCounts(final SparkSession spark, final String bootstrap) {
        final List<Row> updates = spark.read()
                .format("isthmus")
                .option("isthmus.bootstrap.servers", bootstrap)
                .option("subscribe", COUNTS)
                .load()
                .selectExpr("CAST(key AS STRING)", "CAST(value AS STRING)", "offset")
                .collectAsList();
        final Map<String, Row> last = new HashMap<>();
        for (final Row update : updates) {
            last.merge(update.getString(0), update, (a, b) -> a.getLong(2) >= b.getLong(2) ? a : b);
        }
        final long[] totals = new long[3];
        totals[0] = last.size();
        for (final Row update : last.values()) {
            final String[] fields = update.getString(1).split(",");
            totals[1] += Long.parseLong(fields[0]);
            totals[2] += Long.parseLong(fields[1]);
        }
        return totals;
    }
}
