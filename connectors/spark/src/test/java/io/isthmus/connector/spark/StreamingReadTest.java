package io.isthmus.connector.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.DataStreamReader;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code spark.readStream.format("isthmus")} on a local session: restarts, triggers, read limits, starting points. */
class StreamingReadTest {
    private static final long BASE_TIME = 1_700_000_000_000L;

    private static SparkTestSupport isthmus;
    private static SparkSession spark;

    /** What each micro-batch of the running query saw, by query name and batch id (a rerun batch replaces itself). */
    private static final Map<String, Map<Long, List<String>>> BATCHES = new ConcurrentHashMap<>();

    @TempDir
    Path dir;

    @BeforeAll
    static void start() throws Exception {
        isthmus = SparkTestSupport.start(Map.of());
        spark = SparkTestSupport.spark();
    }

    @AfterAll
    static void stop() throws Exception {
        isthmus.close();
    }

    private static DataStreamReader readStream(final String topic) {
        return spark.readStream()
                .format("isthmus")
                .option("isthmus.bootstrap.servers", isthmus.bootstrapServers())
                .option("subscribe", topic);
    }

    /** Writes every micro-batch's values into {@link #BATCHES}, idempotently by batch id. */
    private static StreamingQuery collect(
            final Dataset<Row> stream,
            final String name,
            final Path checkpoint,
            final Trigger trigger,
            final Runnable afterFirstBatch)
            throws Exception {
        BATCHES.computeIfAbsent(name, n -> new ConcurrentHashMap<>());
        return stream.selectExpr("CAST(value AS STRING)")
                .writeStream()
                .trigger(trigger)
                .option("checkpointLocation", checkpoint.toString())
                .foreachBatch((VoidFunction2<Dataset<Row>, Long>) (batch, id) -> {
                    final List<String> values = new ArrayList<>();
                    batch.collectAsList().forEach(r -> values.add(r.getString(0)));
                    final Map<Long, List<String>> batches = BATCHES.get(name);
                    final boolean first = batches.isEmpty();
                    batches.put(id, values);
                    if (first && afterFirstBatch != null) {
                        afterFirstBatch.run();
                    }
                })
                .start();
    }

    private static Map<String, Integer> valueCounts(final String name) {
        final Map<String, Integer> counts = new HashMap<>();
        BATCHES.get(name).values().forEach(values -> values.forEach(v -> counts.merge(v, 1, Integer::sum)));
        return counts;
    }

    private static int largestBatch(final String name) {
        return BATCHES.get(name).values().stream().mapToInt(List::size).max().orElse(0);
    }

    @Test
    void aQueryStoppedAndRestartedThreeTimesSeesEveryRecordOnce() throws Exception {
        final String topic = "stream-restart";
        isthmus.createTopic(topic, 3);
        final Path checkpoint = dir.resolve("checkpoint");
        int produced = 0;
        isthmus.produce(topic, 3, produced, 3_000, BASE_TIME);
        produced += 3_000;
        for (int run = 0; run < 4; run++) {
            final StreamingQuery query = collect(
                    readStream(topic)
                            .option("startingOffsets", "earliest")
                            .option("maxOffsetsPerTrigger", "400")
                            .load(),
                    topic,
                    checkpoint,
                    Trigger.ProcessingTime(0),
                    null);
            if (run < 3) {
                // Stop in the middle: after some micro-batches, while more records wait.
                final int batchesBefore = BATCHES.get(topic).size();
                SparkTestSupport.await(
                        "two more micro-batches",
                        java.time.Duration.ofSeconds(60),
                        () -> BATCHES.get(topic).size() >= batchesBefore + 2 || !query.isActive());
                query.stop();
                isthmus.produce(topic, 3, produced, 1_000, BASE_TIME);
                produced += 1_000;
            } else {
                query.processAllAvailable();
                query.stop();
            }
            assertThat(query.exception().isEmpty())
                    .as("query failed: %s", query.exception())
                    .isTrue();
        }
        final Map<String, Integer> counts = valueCounts(topic);
        assertThat(counts).hasSize(produced);
        assertThat(counts.values()).allMatch(c -> c == 1);
        assertThat(largestBatch(topic)).isLessThanOrEqualTo(400);
    }

    @Test
    void availableNowReadsWhatExistedAtTheStartAndStops() throws Exception {
        final String topic = "stream-available-now";
        isthmus.createTopic(topic, 2);
        isthmus.produce(topic, 2, 0, 1_000, BASE_TIME);
        final StreamingQuery query = collect(
                readStream(topic)
                        .option("startingOffsets", "earliest")
                        .option("maxOffsetsPerTrigger", "300")
                        .load(),
                topic,
                dir.resolve("available-now"),
                Trigger.AvailableNow(),
                // Records written after the query started are not for it.
                () -> isthmus.produce(topic, 2, 1_000, 500, BASE_TIME));
        assertThat(query.awaitTermination(120_000))
                .as("AvailableNow query ended")
                .isTrue();
        assertThat(query.exception().isEmpty())
                .as("query failed: %s", query.exception())
                .isTrue();
        final Map<String, Integer> counts = valueCounts(topic);
        assertThat(counts).hasSize(1_000).containsKeys("value-0", "value-999").doesNotContainKey("value-1000");
        assertThat(BATCHES.get(topic)).hasSizeGreaterThanOrEqualTo(4);
        assertThat(largestBatch(topic)).isLessThanOrEqualTo(300);
    }

    @Test
    void startingPointsAndNewPartitions() throws Exception {
        final String topic = "stream-starting";
        isthmus.createTopic(topic, 1);
        isthmus.produce(topic, 1, 0, 100, BASE_TIME);

        assertThat(memoryQuery(readStream(topic).option("startingOffsets", "earliest"), "s_earliest", null))
                .hasSize(100);
        assertThat(memoryQuery(
                        readStream(topic).option("startingOffsets", "{\"" + topic + "\":{\"0\":40}}"), "s_json", null))
                .hasSize(60)
                .contains("value-40")
                .doesNotContain("value-39");
        assertThat(memoryQuery(
                        readStream(topic).option("startingTimestamp", Long.toString(BASE_TIME + 90)), "s_time", null))
                .hasSize(10);
        // latest: only what comes after the start; a partition added while the query runs is read from its start.
        final List<String> latest = memoryQuery(readStream(topic), "s_latest", () -> {
            try (var admin = isthmus.admin()) {
                admin.createPartitions(topic, 2);
            }
            isthmus.produce(topic, 2, 100, 50, BASE_TIME);
        });
        assertThat(latest).hasSize(50).contains("value-100", "value-101");
    }

    @Test
    void progressReportsOffsetsBehindLatest() throws Exception {
        final String topic = "stream-metrics";
        isthmus.createTopic(topic, 2);
        isthmus.produce(topic, 2, 0, 1_000, BASE_TIME);
        final StreamingQuery query = readStream(topic)
                .option("startingOffsets", "earliest")
                .option("maxOffsetsPerTrigger", "100")
                .load()
                .writeStream()
                .format("noop")
                .option("checkpointLocation", dir.resolve("metrics").toString())
                .trigger(Trigger.ProcessingTime(0))
                .start();
        try {
            SparkTestSupport.await(
                    "a micro-batch with input",
                    java.time.Duration.ofSeconds(60),
                    () -> query.lastProgress() != null && query.lastProgress().numInputRows() > 0);
            final Map<String, String> metrics =
                    query.lastProgress().sources()[0].metrics();
            assertThat(metrics)
                    .containsKeys("minOffsetsBehindLatest", "avgOffsetsBehindLatest", "maxOffsetsBehindLatest");
            assertThat(Long.parseLong(metrics.get("maxOffsetsBehindLatest"))).isBetween(1L, 1_000L);
            assertThat(query.lastProgress().sources()[0].endOffset()).contains("\"" + topic + "\":{\"0\":");
        } finally {
            query.stop();
        }
    }

    /**
     * Runs a query into the memory sink until everything available is in, runs {@code thenProduce} and waits again;
     * returns the values.
     */
    private List<String> memoryQuery(final DataStreamReader reader, final String name, final Runnable thenProduce)
            throws Exception {
        final StreamingQuery query = reader.load()
                .selectExpr("CAST(value AS STRING) AS value")
                .writeStream()
                .format("memory")
                .queryName(name)
                .option(
                        "checkpointLocation",
                        Files.createDirectories(dir.resolve(name)).toString())
                .start();
        try {
            query.processAllAvailable();
            if (thenProduce != null) {
                thenProduce.run();
                query.processAllAvailable();
            }
        } finally {
            query.stop();
        }
        final List<String> values = new ArrayList<>();
        spark.sql("SELECT value FROM " + name).collectAsList().forEach(r -> values.add(r.getString(0)));
        return values;
    }

    static String utf8(final byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
