package io.isthmus.connector.flink.rdma;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.broker.Broker;
import io.isthmus.client.admin.IsthmusAdmin;
import io.isthmus.client.consumer.ConsumedRecord;
import io.isthmus.client.consumer.ConsumerBatch;
import io.isthmus.client.consumer.IsthmusConsumer;
import io.isthmus.client.producer.IsthmusProducer;
import io.isthmus.connector.flink.sink.IsthmusRecordSerializationSchema;
import io.isthmus.connector.flink.sink.IsthmusSink;
import io.isthmus.connector.flink.source.IsthmusSource;
import io.isthmus.connector.flink.source.IsthmusSourceBuilder;
import io.isthmus.connector.flink.source.enumerator.initializer.OffsetsInitializer;
import io.isthmus.connector.flink.testing.FlinkTestJobs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Flink job over RDMA, on a real device (the Soft-RoCE guest): IsthmusSource reads with one-sided READs and
 * IsthmusSink writes with one-sided WRITEs ({@code transport=rdma}, which fails rather than fall back to TCP), and a
 * TCP consumer checks that every record was copied exactly once.
 */
@Tag("rdma")
class FlinkOverRdmaTest {
    private static final int RECORDS = 20_000;

    @RegisterExtension
    static final MiniClusterExtension FLINK = FlinkTestJobs.miniCluster();

    private static Path logDir;
    private static Broker broker;

    @BeforeAll
    static void startBroker() throws Exception {
        logDir = Files.createTempDirectory("flink-rdma");
        final Map<String, String> settings = new HashMap<>();
        settings.put("log.segment.bytes", Integer.toString(1024 * 1024));
        settings.put("rdma.enabled", "true");
        settings.put("rdma.device", env("ISTHMUS_RDMA_DEVICE", "rxe0"));
        settings.put("rdma.gid.index", env("ISTHMUS_RDMA_GID_INDEX", "1"));
        settings.put("rdma.cq.size", "1024");
        settings.put("rdma.max.connections", "8");
        settings.put("num.network.threads", "1");
        broker = Broker.startEmbedded(logDir, settings);
        assertThat(broker.rdma().unavailableReason()).isEmpty();
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) {
            broker.close();
        }
        try (Stream<Path> paths = Files.walk(logDir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private static String env(final String name, final String fallback) {
        final String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    private static Map<String, String> rdma() {
        return Map.of(
                "transport", "rdma",
                "rdma.device", env("ISTHMUS_RDMA_DEVICE", "rxe0"),
                "rdma.gid.index", env("ISTHMUS_RDMA_GID_INDEX", "1"));
    }

    @Test
    @Timeout(600)
    void shouldCopyATopicWithAFlinkJobReadingAndWritingOverRdma() throws Exception {
        try (IsthmusAdmin admin = new IsthmusAdmin(broker.bootstrapServers())) {
            admin.createTopic("rdma-in", 2, (short) 1);
            admin.createTopic("rdma-out", 2, (short) 1);
        }
        final Map<String, Object> producerSettings = new HashMap<>(rdma());
        producerSettings.put("bootstrap.servers", broker.bootstrapServers());
        try (IsthmusProducer producer = new IsthmusProducer(producerSettings)) {
            for (int i = 0; i < RECORDS; i++) {
                producer.send(
                        "rdma-in",
                        i % 2,
                        IsthmusProducer.NOW,
                        null,
                        ("v-" + i).getBytes(StandardCharsets.UTF_8),
                        null,
                        null);
            }
            producer.flush();
        }

        final StreamExecutionEnvironment env = FlinkTestJobs.failFast(2);
        final IsthmusSourceBuilder<String> source = IsthmusSource.<String>builder()
                .setBootstrapServers(broker.bootstrapServers())
                .setTopics("rdma-in")
                .setBounded(OffsetsInitializer.latest())
                .setValueOnlyDeserializer(new SimpleStringSchema());
        rdma().forEach(source::setProperty);
        env.fromSource(source.build(), WatermarkStrategy.noWatermarks(), "rdma source")
                .map(value -> value + "!")
                .sinkTo(sink());
        env.execute("flink over rdma");

        final Map<Integer, List<Integer>> perPartition = new HashMap<>();
        try (IsthmusConsumer consumer =
                new IsthmusConsumer(Map.of("bootstrap.servers", broker.bootstrapServers(), "transport", "tcp"))) {
            final List<TopicPartition> partitions =
                    List.of(new TopicPartition("rdma-out", 0), new TopicPartition("rdma-out", 1));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            int read = 0;
            final long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (read < RECORDS && System.nanoTime() - deadline < 0) {
                try (ConsumerBatch batch = consumer.poll(Duration.ofMillis(500))) {
                    for (final ConsumedRecord record : batch) {
                        final String value = record.valueAsString();
                        assertThat(value).startsWith("v-").endsWith("!");
                        final int n = Integer.parseInt(value.substring(2, value.length() - 1));
                        perPartition
                                .computeIfAbsent(n % 2, k -> new ArrayList<>())
                                .add(n);
                        read++;
                    }
                }
            }
        }
        for (int p = 0; p < 2; p++) {
            final List<Integer> expected = new ArrayList<>();
            for (int i = p; i < RECORDS; i += 2) {
                expected.add(i);
            }
            assertThat(perPartition.get(p))
                    .as("input partition %s's records", p)
                    .containsExactlyInAnyOrderElementsOf(expected);
        }
    }

    private static IsthmusSink<String> sink() {
        final var builder = IsthmusSink.<String>builder()
                .setBootstrapServers(broker.bootstrapServers())
                .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
                .setRecordSerializer(IsthmusRecordSerializationSchema.<String>builder()
                        .setTopic("rdma-out")
                        .setValueSerializationSchema(new SimpleStringSchema())
                        .build());
        rdma().forEach(builder::setProperty);
        return builder.build();
    }
}
