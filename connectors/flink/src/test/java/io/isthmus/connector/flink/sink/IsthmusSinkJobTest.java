package io.isthmus.connector.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.client.consumer.ConsumedRecord;
import io.isthmus.client.consumer.ConsumerBatch;
import io.isthmus.client.consumer.IsthmusConsumer;
import io.isthmus.connector.flink.source.IsthmusSource;
import io.isthmus.connector.flink.source.enumerator.initializer.OffsetsInitializer;
import io.isthmus.connector.flink.testing.FlinkTestJobs;
import io.isthmus.connector.flink.testing.IsthmusBrokerExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The sink in real jobs on a Flink MiniCluster, writing to an isthmus broker in the test JVM. */
class IsthmusSinkJobTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = FlinkTestJobs.miniCluster();

    @RegisterExtension
    static final IsthmusBrokerExtension BROKER = new IsthmusBrokerExtension();

    /** Every record of a topic as "partition:key:value:header" strings, read with the isthmus consumer. */
    private static List<String> readAll(final String topic, final int partitions, final int expected) {
        final List<TopicPartition> assignment = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            assignment.add(new TopicPartition(topic, p));
        }
        final List<String> out = new ArrayList<>();
        try (IsthmusConsumer consumer = new IsthmusConsumer(Map.of(
                "bootstrap.servers", BROKER.bootstrapServers(), "transport", "tcp", "auto.offset.reset", "earliest"))) {
            consumer.assign(assignment);
            consumer.seekToBeginning(assignment);
            final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (out.size() < expected && System.nanoTime() - deadline < 0) {
                try (ConsumerBatch batch = consumer.poll(Duration.ofMillis(200))) {
                    for (final ConsumedRecord r : batch) {
                        final String header = r.headerCount() == 0
                                ? ""
                                : r.headerKey(0) + "="
                                        + new String(
                                                r.headerValue(0).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                                                StandardCharsets.UTF_8);
                        out.add(r.partition() + ":" + r.keyAsString() + ":" + r.valueAsString() + ":" + header);
                    }
                }
            }
        }
        return out;
    }

    @Test
    void shouldWriteEveryElementAtLeastOnceWithKeysPartitionsAndHeaders() throws Exception {
        final String topic = "sink-out";
        BROKER.createTopic(topic, 3);
        final List<Integer> input = new ArrayList<>();
        for (int i = 0; i < 3_000; i++) {
            input.add(i);
        }
        final IsthmusSink<Integer> sink = IsthmusSink.<Integer>builder()
                .setBootstrapServers(BROKER.bootstrapServers())
                .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
                .setProperty("transport", "tcp")
                .setRecordSerializer((element, context, timestamp) -> {
                    final ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(
                            topic,
                            element % 3,
                            1_000L + element,
                            ("k" + element).getBytes(StandardCharsets.UTF_8),
                            ("v" + element).getBytes(StandardCharsets.UTF_8));
                    record.headers()
                            .add(
                                    "sub",
                                    Integer.toString(context.getParallelInstanceId())
                                            .getBytes());
                    return record;
                })
                .build();
        final StreamExecutionEnvironment env = FlinkTestJobs.failFast(2);
        env.enableCheckpointing(100);
        env.fromData(input).sinkTo(sink);
        env.execute("sink");
        final List<String> written = readAll(topic, 3, 3_000);
        assertThat(written).hasSize(3_000);
        final Map<Integer, Integer> perPartition = new HashMap<>();
        for (final String line : written) {
            final String[] parts = line.split(":");
            final int element = Integer.parseInt(parts[2].substring(1));
            assertThat(parts[0]).isEqualTo(Integer.toString(element % 3));
            assertThat(parts[1]).isEqualTo("k" + element);
            assertThat(parts[3]).matches("sub=[01]");
            perPartition.merge(Integer.parseInt(parts[0]), 1, Integer::sum);
        }
        assertThat(perPartition).containsOnly(Map.entry(0, 1_000), Map.entry(1, 1_000), Map.entry(2, 1_000));
    }

    @Test
    void shouldCopyATopicFromSourceToSinkWithTheBuilderSerializer() throws Exception {
        BROKER.createTopic("copy-in", 2);
        BROKER.createTopic("copy-out", 2);
        BROKER.write("copy-in", 0, "x", 0, 500, 0);
        BROKER.write("copy-in", 1, "y", 0, 500, 0);
        final StreamExecutionEnvironment env = FlinkTestJobs.failFast(2);
        env.fromSource(
                        IsthmusSource.<String>builder()
                                .setBootstrapServers(BROKER.bootstrapServers())
                                .setTopics("copy-in")
                                .setBounded(OffsetsInitializer.latest())
                                .setValueOnlyDeserializer(new SimpleStringSchema())
                                .build(),
                        WatermarkStrategy.noWatermarks(),
                        "in")
                .map(String::toUpperCase)
                .sinkTo(IsthmusSink.<String>builder()
                        .setBootstrapServers(BROKER.bootstrapServers())
                        .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
                        .setRecordSerializer(IsthmusRecordSerializationSchema.<String>builder()
                                .setTopic("copy-out")
                                .setKeySerializationSchema(new SimpleStringSchema())
                                .setValueSerializationSchema(new SimpleStringSchema())
                                .build())
                        .build());
        env.execute("copy");
        final List<String> values = new ArrayList<>();
        for (final String line : readAll("copy-out", 2, 1_000)) {
            values.add(line.split(":")[2]);
        }
        final List<String> expected = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            expected.add("X-" + i);
            expected.add("Y-" + i);
        }
        assertThat(values).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void shouldAskExactlyOnceForATransactionalIdPrefixAndTcp() {
        assertThatThrownBy(() -> IsthmusSink.<String>builder()
                        .setBootstrapServers("localhost:9092")
                        .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                        .setRecordSerializer((e, c, t) -> null)
                        .build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("requires a transactionalIdPrefix");
        assertThatThrownBy(() -> IsthmusSink.<String>builder()
                        .setBootstrapServers("localhost:9092")
                        .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                        .setTransactionalIdPrefix("job")
                        .setProperty("transport", "rdma")
                        .setRecordSerializer((e, c, t) -> null)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("TCP only");
        final IsthmusSink<String> sink = IsthmusSink.<String>builder()
                .setBootstrapServers("localhost:9092")
                .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                .setTransactionalIdPrefix("job")
                .setProperty("transactional.id", "ignored")
                .setRecordSerializer((e, c, t) -> null)
                .build();
        assertThat(sink.deliveryGuarantee()).isEqualTo(DeliveryGuarantee.EXACTLY_ONCE);
        assertThat(sink.producerSettings()).doesNotContainKey("transactional.id");
    }

    @Test
    void shouldTranslateKafkaProducerPropertiesAndRefuseTypos() {
        final Properties kafka = new Properties();
        kafka.setProperty("bootstrap.servers", "localhost:9092");
        kafka.setProperty("linger.ms", "20");
        kafka.setProperty("key.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer");
        final IsthmusSink<String> sink = IsthmusSink.<String>builder()
                .setKafkaProducerConfig(kafka)
                .setRecordSerializer((e, c, t) -> null)
                .build();
        assertThat(sink.producerSettings()).containsEntry("linger.ms", "20").doesNotContainKey("key.serializer");
        assertThat(sink.deliveryGuarantee()).isEqualTo(DeliveryGuarantee.NONE);
        assertThatThrownBy(() -> IsthmusSink.<String>builder()
                        .setBootstrapServers("localhost:9092")
                        .setProperty("lingr.ms", "20")
                        .setRecordSerializer((e, c, t) -> null)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lingr.ms");
    }
}
