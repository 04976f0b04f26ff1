package io.isthmus.connector.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.DataStreamReader;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Mistakes a user makes fail the query with a message naming the option, and never hang it. */
@Timeout(120)
class BadInputTest {
    private static SparkTestSupport isthmus;
    private static SparkSession spark;

    @BeforeAll
    static void start() throws Exception {
        isthmus = SparkTestSupport.start(Map.of("auto.create.topics.enable", "false"));
        spark = SparkTestSupport.spark();
        isthmus.createTopic("bad-input", 1);
    }

    @AfterAll
    static void stop() throws Exception {
        isthmus.close();
    }

    @TempDir
    static Path checkpoints;

    /**
     * Starts a streaming query on {@code reader} and waits for it to fail: options of a streaming read are read when the
     * query plans its first micro-batch.
     *
     * @return the illegal-argument failure in the chain, which the assertions then look at
     */
    private static IllegalArgumentException streamFailure(final DataStreamReader reader) throws Exception {
        Throwable failure;
        try {
            final StreamingQuery query = reader.load()
                    .writeStream()
                    .format("noop")
                    .option(
                            "checkpointLocation",
                            Files.createTempDirectory(checkpoints, "q").toString())
                    .start();
            try {
                query.awaitTermination(60_000);
                failure = query.exception().isDefined() ? query.exception().get() : null;
            } catch (final Exception e) { // Spark throws StreamingQueryException undeclared
                failure = e;
            } finally {
                query.stop();
            }
        } catch (final IllegalArgumentException e) {
            failure = e;
        }
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof IllegalArgumentException e) {
                return e;
            }
        }
        throw new AssertionError("expected the query to fail with an IllegalArgumentException", failure);
    }

    private static DataStreamReader stream() {
        return spark.readStream().format("isthmus").option("isthmus.bootstrap.servers", isthmus.bootstrapServers());
    }

    @Test
    void noSubscriptionOption() throws Exception {
        assertThat(streamFailure(stream())).hasMessageContaining("'subscribe'");
    }

    @Test
    void twoSubscriptionOptions() throws Exception {
        assertThat(streamFailure(stream().option("subscribe", "bad-input").option("subscribePattern", "bad.*")))
                .hasMessageContaining("only one of");
    }

    @Test
    void malformedOffsetsJson() throws Exception {
        assertThat(streamFailure(
                        stream().option("subscribe", "bad-input").option("startingOffsets", "{\"bad-input\":{\"0\":")))
                .hasMessageContaining("startingOffsets");
        assertThat(streamFailure(stream().option("assign", "[0, 1]"))).hasMessageContaining("assign");
    }

    @Test
    void noBootstrapServers() throws Exception {
        assertThat(streamFailure(spark.readStream().format("isthmus").option("subscribe", "bad-input")))
                .hasMessageContaining("bootstrap.servers");
    }

    @Test
    void aMissingTopicFailsTheReadNamingIt() {
        assertThatThrownBy(() -> spark.read()
                        .format("isthmus")
                        .option("isthmus.bootstrap.servers", isthmus.bootstrapServers())
                        .option("subscribe", "no-such-topic")
                        .load()
                        .count())
                .hasStackTraceContaining("subscribe=no-such-topic")
                .hasStackTraceContaining("does not exist");
    }

    @Test
    void anUnreachableBrokerFailsTheReadInsteadOfHanging() {
        assertThatThrownBy(() -> spark.read()
                        .format("isthmus")
                        .option("isthmus.bootstrap.servers", "127.0.0.1:1")
                        .option("subscribe", "bad-input")
                        .option("fetchOffset.numRetries", "1")
                        .option("fetchOffset.retryIntervalMs", "10")
                        .load()
                        .count())
                .hasStackTraceContaining("127.0.0.1:1");
    }

    @Test
    void anUnknownClientSettingIsRefused() throws Exception {
        assertThat(streamFailure(stream().option("subscribe", "bad-input").option("isthmus.no.such.setting", "1")))
                .hasMessageContaining("no.such.setting");
    }
}
