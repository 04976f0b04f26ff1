package io.isthmus.connector.spark;

import io.isthmus.broker.Broker;
import io.isthmus.client.admin.IsthmusAdmin;
import io.isthmus.client.producer.IsthmusProducer;
import io.isthmus.protocol.record.HeaderList;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;

/** A local SparkSession and an isthmus broker in the test JVM, shared by a test class. */
public final class SparkTestSupport implements AutoCloseable {
    private final Path logDir;
    private final Broker broker;

    private SparkTestSupport(final Path logDir, final Broker broker) {
        this.logDir = logDir;
        this.broker = broker;
    }

    /** A broker with test-sized segments and {@code overrides} on top. */
    public static SparkTestSupport start(final Map<String, String> overrides) throws Exception {
        final Path logDir = Files.createTempDirectory("isthmus-spark-test");
        final java.util.HashMap<String, String> settings = new java.util.HashMap<>(
                Map.of("log.segment.bytes", Integer.toString(8 * 1024 * 1024), "num.network.threads", "2"));
        settings.putAll(overrides);
        return new SparkTestSupport(logDir, Broker.startEmbedded(logDir, settings));
    }

    /**
     * The local session: two executor threads, two shuffle partitions, no UI, and up to four attempts per task, as
     * a cluster's {@code spark.task.maxFailures} default allows (plain {@code local[2]} allows one). Why: a task whose
     * thread is interrupted gets InterruptException from the consumer, as it would from kafka-clients, and Spark
     * interrupts task threads when it stops a query, racing with the tasks' ends; on a cluster such a task runs again,
     * and so it must here.
     */
    public static SparkSession spark() {
        return SparkSession.builder()
                .master("local[2,4]")
                .appName("isthmus-connector-spark-test")
                .config("spark.ui.enabled", "false")
                // Loopback only: the driver binds where the broker listens.
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.sql.shuffle.partitions", "2")
                .config("spark.sql.streaming.forceDeleteTempCheckpointLocation", "true")
                .getOrCreate();
    }

    /**
     * Polls {@code condition} every 20 ms until it holds; fails naming {@code what} after {@code timeout}, so that a
     * query that stops making progress fails the test instead of hanging it.
     */
    public static void await(
            final String what, final java.time.Duration timeout, final java.util.function.BooleanSupplier condition)
            throws InterruptedException {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + timeout + ": " + what);
            }
            Thread.sleep(20);
        }
    }

    public String bootstrapServers() {
        return broker.bootstrapServers();
    }

    public IsthmusAdmin admin() {
        return new IsthmusAdmin(bootstrapServers());
    }

    public void createTopic(final String topic, final int partitions) {
        try (IsthmusAdmin admin = admin()) {
            admin.createTopic(topic, partitions, (short) 1);
        }
    }

    public IsthmusProducer producer() {
        return new IsthmusProducer(Map.of("bootstrap.servers", bootstrapServers(), "linger.ms", "0"));
    }

    /**
     * Writes {@code count} records {@code key-i}/{@code value-i} (i from {@code first}) round-robin over {@code
     * partitions}, record i with timestamp {@code timestampBase + i} and a header {@code h=i}.
     */
    public void produce(
            final String topic, final int partitions, final int first, final int count, final long timestampBase) {
        try (IsthmusProducer producer = producer()) {
            for (int i = first; i < first + count; i++) {
                producer.send(
                        topic,
                        i % partitions,
                        timestampBase + i,
                        ("key-" + i).getBytes(StandardCharsets.UTF_8),
                        ("value-" + i).getBytes(StandardCharsets.UTF_8),
                        new HeaderList().add("h", Integer.toString(i).getBytes(StandardCharsets.UTF_8)),
                        null);
            }
            producer.flush();
        }
    }

    @Override
    public void close() throws Exception {
        broker.close();
        try (Stream<Path> paths = Files.walk(logDir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
