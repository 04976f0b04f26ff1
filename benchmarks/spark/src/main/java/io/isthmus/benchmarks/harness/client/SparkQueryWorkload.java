package io.isthmus.benchmarks.harness.client;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryListener;
import org.apache.spark.sql.streaming.Trigger;

/**
 * The same Structured Streaming query, read and count by key, on a local Spark in this JVM, over the preloaded topic
 * until its end ({@code Trigger.AvailableNow}, micro-batches of a twentieth of the records each): with {@code
 * format("isthmus")} for the isthmus client, with Spark's own {@code format("kafka")} (spark-sql-kafka-0-10, its
 * defaults) for kafka-clients. The first micro-batch (session, code generation and JIT warmup) is not measured: the
 * clock runs from its end to the query's, and the micro-batch latency is the median of the others' trigger times.
 * Every record must be read exactly once, or the workload fails.
 */
public final class SparkQueryWorkload implements Workload {
    /** Micro-batches per run: enough for a latency median, few enough that each one is mostly reading. */
    private static final int BATCHES = 20;

    @Override
    public Map<String, Object> run(final WorkloadContext context) throws Exception {
        final SparkSession spark = SparkSession.builder()
                .master("local[2]")
                .appName("bench spark-query")
                .config("spark.ui.enabled", "false")
                // Loopback only: the driver binds where the broker listens.
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.sql.shuffle.partitions", "2")
                .getOrCreate();
        final Progress progress = new Progress(context);
        spark.streams().addListener(progress);
        try {
            final StreamingQuery query = query(spark, context)
                    .groupBy("key")
                    .count()
                    .writeStream()
                    .format("noop")
                    .outputMode("update")
                    .trigger(Trigger.AvailableNow())
                    .start();
            if (!query.awaitTermination(context.remaining().toMillis())) {
                query.stop();
                throw new IllegalStateException("the query did not finish before the deadline");
            }
            if (query.exception().isDefined()) {
                throw query.exception().get();
            }
            return progress.result(context);
        } finally {
            spark.stop();
        }
    }

    private static Dataset<Row> query(final SparkSession spark, final WorkloadContext context) {
        final ClientSettings settings = context.settings();
        final String perTrigger = Long.toString(Math.max(1, context.records() / BATCHES));
        return switch (context.library()) {
            case ISTHMUS, ISTHMUS_SHM ->
                spark.readStream()
                        .format("isthmus")
                        .option("isthmus.bootstrap.servers", settings.bootstrap())
                        .option("isthmus.transport", context.library() == ClientLibrary.ISTHMUS_SHM ? "shm" : "tcp")
                        .option("isthmus.max.partition.fetch.bytes", Integer.toString(4 << 20))
                        .option("subscribe", settings.topic())
                        .option("startingOffsets", "earliest")
                        .option("maxOffsetsPerTrigger", perTrigger)
                        .load();
            case KAFKA_CLIENTS ->
                spark.readStream()
                        .format("kafka")
                        .option("kafka.bootstrap.servers", settings.bootstrap())
                        .option("subscribe", settings.topic())
                        .option("startingOffsets", "earliest")
                        .option("maxOffsetsPerTrigger", perTrigger)
                        .load();
        };
    }

    private static long median(final List<Long> values) {
        final List<Long> sorted = new ArrayList<>(values);
        sorted.sort(null);
        return sorted.get(sorted.size() / 2);
    }

    /** Rows and trigger times of every micro-batch, with the phase markers around the measured ones. */
    private static final class Progress extends StreamingQueryListener {
        private final WorkloadContext context;
        private final List<Long> batchMillis = new ArrayList<>();
        /** Per measured micro-batch, the time of each of Spark's phases ("addBatch", "queryPlanning", ...). */
        private final Map<String, List<Long>> phaseMillis = new java.util.TreeMap<>();

        private long rows;
        private long firstBatchRows = -1;
        private long measuredFromNanos;
        private long endNanos;

        Progress(final WorkloadContext context) {
            this.context = context;
        }

        @Override
        public void onQueryStarted(final QueryStartedEvent event) {}

        @Override
        public synchronized void onQueryProgress(final QueryProgressEvent event) {
            final long input = event.progress().numInputRows();
            if (input == 0) {
                return;
            }
            rows += input;
            if (firstBatchRows < 0) {
                firstBatchRows = input;
                measuredFromNanos = System.nanoTime();
                context.beginPhase();
            } else {
                batchMillis.add(event.progress().durationMs().get("triggerExecution"));
                event.progress().durationMs().forEach((phase, ms) -> phaseMillis
                        .computeIfAbsent(phase, p -> new ArrayList<>())
                        .add(ms));
            }
            if (rows == context.records()) {
                endNanos = System.nanoTime();
                context.endPhase();
                notifyAll();
            }
        }

        @Override
        public void onQueryIdle(final QueryIdleEvent event) {}

        @Override
        public void onQueryTerminated(final QueryTerminatedEvent event) {}

        /** The figures, once the last micro-batch's progress event came (Spark delivers it after the query ends). */
        synchronized Map<String, Object> result(final WorkloadContext context) throws InterruptedException {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (endNanos == 0 && System.nanoTime() < deadline) {
                wait(1_000);
            }
            if (rows != context.records() || endNanos == 0 || batchMillis.isEmpty()) {
                throw new IllegalStateException("the query read " + rows + " records in " + (batchMillis.size() + 1)
                        + " micro-batches, expected " + context.records() + " in more than one");
            }
            final Map<String, Object> result = new LinkedHashMap<>();
            Throughput.put(result, rows - firstBatchRows, context.recordBytes(), endNanos - measuredFromNanos);
            result.put("batch_latency_p50_ms", median(batchMillis));
            result.put("batch_latency_max_ms", java.util.Collections.max(batchMillis));
            result.put("micro_batches", batchMillis.size() + 1);
            // Where a micro-batch's time goes: "addBatch" is the execution (reading and counting), the rest Spark's
            // planning and bookkeeping around it.
            phaseMillis.forEach((phase, ms) -> result.put("phase_" + phase + "_p50_ms", median(ms)));
            result.put("measured_s", TimeUnit.NANOSECONDS.toMillis(endNanos - measuredFromNanos) / 1e3);
            return result;
        }
    }
}
