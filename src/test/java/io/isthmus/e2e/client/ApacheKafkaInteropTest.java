package io.isthmus.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.cli.Demo;
import io.isthmus.cli.DemoOptions;
import io.isthmus.cli.DemoResult;
import io.isthmus.client.admin.IsthmusAdmin;
import io.isthmus.client.config.Transport;
import io.isthmus.testing.ApacheKafkaBroker;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The isthmus client against a real Apache Kafka 4.4 broker, in both interop directions. */
class ApacheKafkaInteropTest {
    @TempDir
    static Path dir;

    private static ApacheKafkaBroker kafka;

    @BeforeAll
    static void startKafka() throws Exception {
        kafka = ApacheKafkaBroker.start(dir);
    }

    @AfterAll
    static void stopKafka() {
        kafka.close();
    }

    private static void createTopic(final String topic, final int partitions) {
        try (IsthmusAdmin admin = new IsthmusAdmin(kafka.bootstrapServers())) {
            admin.createTopic(topic, partitions, (short) 1);
            assertThat(admin.listTopics()).contains(topic);
            assertThat(admin.describeTopics(java.util.List.of(topic)).get(topic).partitionCount())
                    .isEqualTo(partitions);
        }
        awaitPartitionsServed(topic, partitions);
    }

    /**
     * Kafka answers CreateTopics before its replica manager serves the new partitions. A produce in that
     * window fails for some batches while later ones land, and an idempotent producer the broker does not
     * know yet is then stuck out of order. ListOffsets goes through the same replica manager, so once it
     * succeeds for every partition, so does Produce.
     */
    private static void awaitPartitionsServed(final String topic, final int partitions) {
        final Map<org.apache.kafka.common.TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> latest =
                new java.util.HashMap<>();
        for (int p = 0; p < partitions; p++) {
            latest.put(
                    new org.apache.kafka.common.TopicPartition(topic, p),
                    org.apache.kafka.clients.admin.OffsetSpec.latest());
        }
        try (org.apache.kafka.clients.admin.Admin admin =
                org.apache.kafka.clients.admin.Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            final long deadline =
                    System.nanoTime() + java.time.Duration.ofSeconds(30).toNanos();
            while (true) {
                try {
                    admin.listOffsets(latest).all().get();
                    return;
                } catch (final java.util.concurrent.ExecutionException notYet) {
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("Kafka did not serve " + topic + " within 30 s", notYet);
                    }
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError(e);
                }
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"none", "lz4", "zstd"})
    void shouldBeReadByKafkaConsumerFromKafka(final String compression) {
        final String topic = "isthmus-to-kafka-" + compression;
        createTopic(topic, 3);
        assertThat(Interop.produceWithIsthmusConsumeWithKafka(kafka.bootstrapServers(), topic, compression, 3, 5000))
                .isEqualTo(5000);
    }

    @ParameterizedTest
    @ValueSource(strings = {"none", "lz4", "zstd"})
    void shouldReadWhatKafkaProducerWroteToKafka(final String compression) {
        final String topic = "kafka-to-isthmus-" + compression;
        createTopic(topic, 3);
        assertThat(Interop.produceWithKafkaConsumeWithIsthmus(kafka.bootstrapServers(), topic, compression, 3, 5000))
                .isEqualTo(5000);
    }

    @Test
    void shouldShareAGroupWithAKafkaConsumerOnKafka() throws Exception {
        final String topic = "shared-group";
        createTopic(topic, 4);
        assertThat(Interop.shareGroupWithKafkaConsumer(kafka.bootstrapServers(), topic, 4, 4000))
                .isEqualTo(4000);
    }

    @Test
    void shouldRunTheDemoAgainstKafka() {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final DemoResult result = Demo.run(
                new DemoOptions(kafka.bootstrapServers(), 20_000, 100, 2, Transport.TCP, null),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        assertThat(result.verified()).isEqualTo(20_000);
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("demo: records=20000 verified=20000 failed=0 transport=tcp");
    }
}
