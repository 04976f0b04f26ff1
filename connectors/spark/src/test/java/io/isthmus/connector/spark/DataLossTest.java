package io.isthmus.connector.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.client.admin.IsthmusAdmin;
import io.isthmus.client.cluster.OffsetLookup;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code failOnDataLoss}: a query reads the first records, and while it is stopped the broker's retention deletes the
 * segments holding its next offsets. Restarted from its checkpoint, it fails naming the loss, or, with {@code
 * failOnDataLoss=false}, skips to the log start and reads the rest.
 */
class DataLossTest {
    private static SparkTestSupport isthmus;
    private static SparkSession spark;

    /** Offsets each query's micro-batches saw, by query and batch id. */
    private static final Map<String, Map<Long, List<Long>>> SEEN = new ConcurrentHashMap<>();

    @TempDir
    Path dir;

    private static List<Long> seen(final String table) {
        final List<Long> offsets = new ArrayList<>();
        SEEN.getOrDefault(table, Map.of()).values().forEach(offsets::addAll);
        offsets.sort(null);
        return offsets;
    }

    @BeforeAll
    static void start() throws Exception {
        // Small segments and a small retention by size: old segments go as soon as new ones fill.
        isthmus = SparkTestSupport.start(Map.of(
                "log.segment.bytes", Integer.toString(16 * 1024),
                "log.retention.bytes", Integer.toString(64 * 1024),
                "log.retention.check.interval.ms", "100"));
        spark = SparkTestSupport.spark();
    }

    @AfterAll
    static void stop() throws Exception {
        isthmus.close();
    }

    private StreamingQuery query(final String topic, final boolean failOnDataLoss, final String table)
            throws Exception {
        return spark.readStream()
                .format("isthmus")
                .option("isthmus.bootstrap.servers", isthmus.bootstrapServers())
                .option("subscribe", topic)
                .option("startingOffsets", "earliest")
                .option("failOnDataLoss", Boolean.toString(failOnDataLoss))
                .load()
                .selectExpr("offset")
                .writeStream()
                .foreachBatch((VoidFunction2<Dataset<Row>, Long>) (batch, id) -> {
                    final List<Long> offsets = new ArrayList<>();
                    batch.collectAsList().forEach(r -> offsets.add(r.getLong(0)));
                    SEEN.computeIfAbsent(table, t -> new ConcurrentHashMap<>()).put(id, offsets);
                })
                .option("checkpointLocation", dir.resolve(topic).toString())
                .start();
    }

    /** Reads the first 100 records, stops, writes until retention deleted offset 100, returns the new log start. */
    private long readThenLoseTheNextOffsets(final String topic, final String table) throws Exception {
        isthmus.createTopic(topic, 1);
        isthmus.produce(topic, 1, 0, 100, System.currentTimeMillis());
        final StreamingQuery first = query(topic, true, table);
        first.processAllAvailable();
        first.stop();
        assertThat(seen(table)).hasSize(100);
        final TopicPartition partition = new TopicPartition(topic, 0);
        try (IsthmusAdmin admin = isthmus.admin()) {
            int produced = 100;
            final long deadline =
                    System.nanoTime() + java.time.Duration.ofSeconds(60).toNanos();
            while (logStart(admin, partition) <= 100) {
                assertThat(System.nanoTime() - deadline)
                        .as("retention deleting offset 100")
                        .isNegative();
                isthmus.produce(topic, 1, produced, 500, System.currentTimeMillis());
                produced += 500;
                // Retention runs every 100 ms (log.retention.check.interval.ms): give it a turn before writing more.
                Thread.sleep(200);
            }
            return logStart(admin, partition);
        }
    }

    private static long logStart(final IsthmusAdmin admin, final TopicPartition partition) {
        return admin.listOffsets(Map.of(partition, OffsetLookup.EARLIEST))
                .get(partition)
                .offset();
    }

    @Test
    void withFailOnDataLossTheQueryFailsNamingTheLostOffsets() throws Exception {
        readThenLoseTheNextOffsets("loss-fails", "loss_fails");
        final StreamingQuery again = query("loss-fails", true, "loss_fails_again");
        Exception failure = null;
        try {
            again.processAllAvailable();
        } catch (final Exception e) { // Spark throws StreamingQueryException undeclared
            failure = e;
        } finally {
            again.stop();
        }
        assertThat(failure).as("the restarted query must fail").isInstanceOf(StreamingQueryException.class);
        assertThat(failure)
                .hasStackTraceContaining("offsets [100, ")
                .hasStackTraceContaining("loss-fails-0")
                .hasStackTraceContaining("failOnDataLoss");
    }

    @Test
    void withoutFailOnDataLossTheQuerySkipsToTheLogStart() throws Exception {
        final long logStart = readThenLoseTheNextOffsets("loss-skips", "loss_skips");
        final StreamingQuery again = query("loss-skips", false, "loss_skips_again");
        again.processAllAvailable();
        again.stop();
        assertThat(again.exception().isEmpty()).isTrue();
        final List<Long> offsets = seen("loss_skips_again");
        // Nothing from the lost range; everything from where the log started then (or later, if retention ran again).
        assertThat(offsets).isNotEmpty().allMatch(o -> o >= logStart);
        for (int i = 1; i < offsets.size(); i++) {
            assertThat(offsets.get(i)).isEqualTo(offsets.get(i - 1) + 1);
        }
    }
}
