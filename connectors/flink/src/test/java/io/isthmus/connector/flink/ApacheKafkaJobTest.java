package io.isthmus.connector.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.connector.flink.sink.IsthmusRecordSerializationSchema;
import io.isthmus.connector.flink.sink.IsthmusSink;
import io.isthmus.connector.flink.source.IsthmusSource;
import io.isthmus.connector.flink.source.enumerator.initializer.OffsetsInitializer;
import io.isthmus.connector.flink.testing.FlinkTestJobs;
import io.isthmus.testing.ApacheKafkaBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The source and the sink against a real Apache Kafka 4.4 broker in the test JVM, over TCP. */
class ApacheKafkaJobTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = FlinkTestJobs.miniCluster();

    @TempDir
    static Path dir;

    private static ApacheKafkaBroker kafka;
    private static Admin admin;

    @BeforeAll
    static void startKafka() throws Exception {
        kafka = ApacheKafkaBroker.start(Files.createDirectories(dir.resolve("kafka")));
        admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()));
    }

    @AfterAll
    static void stopKafka() {
        if (admin != null) {
            admin.close();
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    private static void createTopic(final String topic, final int partitions) throws Exception {
        admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
                .all()
                .get();
    }

    @Test
    void shouldReadFromKafkaCommitToItsGroupAndWriteBackToIt() throws Exception {
        createTopic("kin", 2);
        createTopic("kout", 2);
        final Properties producerProps = new Properties();
        producerProps.put("bootstrap.servers", kafka.bootstrapServers());
        producerProps.put("acks", "all");
        final List<Future<RecordMetadata>> acks = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(producerProps, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < 2_000; i++) {
                acks.add(producer.send(
                        new ProducerRecord<>("kin", i % 2, null, ("r-" + i).getBytes(StandardCharsets.UTF_8))));
            }
        }
        for (final Future<RecordMetadata> ack : acks) {
            ack.get();
        }

        final StreamExecutionEnvironment env = FlinkTestJobs.failFast(2);
        env.enableCheckpointing(100);
        env.fromSource(
                        IsthmusSource.<String>builder()
                                .setBootstrapServers(kafka.bootstrapServers())
                                .setTopics("kin")
                                .setGroupId("kafka-job")
                                .setBounded(OffsetsInitializer.latest())
                                .setValueOnlyDeserializer(new SimpleStringSchema())
                                .build(),
                        WatermarkStrategy.noWatermarks(),
                        "from kafka")
                .map(value -> value + "!")
                .sinkTo(IsthmusSink.<String>builder()
                        .setBootstrapServers(kafka.bootstrapServers())
                        .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
                        .setRecordSerializer(IsthmusRecordSerializationSchema.<String>builder()
                                .setTopic("kout")
                                .setValueSerializationSchema(new SimpleStringSchema())
                                .build())
                        .build());
        env.execute("kafka round trip");

        final List<String> written = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(
                Map.of("bootstrap.servers", kafka.bootstrapServers(), "auto.offset.reset", "earliest"),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.assign(List.of(new TopicPartition("kout", 0), new TopicPartition("kout", 1)));
            final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (written.size() < 2_000 && System.nanoTime() - deadline < 0) {
                for (final ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    written.add(new String(record.value(), StandardCharsets.UTF_8));
                }
            }
        }
        final List<String> expected = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            expected.add("r-" + i + "!");
        }
        assertThat(written).containsExactlyInAnyOrderElementsOf(expected);

        // An unbounded job with the same group commits its checkpointed offsets to Kafka's group coordinator.
        final StreamExecutionEnvironment committing = FlinkTestJobs.failFast(2);
        committing.enableCheckpointing(100);
        committing
                .fromSource(
                        IsthmusSource.<String>builder()
                                .setBootstrapServers(kafka.bootstrapServers())
                                .setTopics("kin")
                                .setGroupId("kafka-job")
                                .setValueOnlyDeserializer(new SimpleStringSchema())
                                .build(),
                        WatermarkStrategy.noWatermarks(),
                        "from kafka")
                .sinkTo(new DiscardingSink<>());
        final JobClient job = committing.executeAsync("kafka commits");
        try {
            final Map<TopicPartition, OffsetAndMetadata> expectedOffsets = Map.of(
                    new TopicPartition("kin", 0), new OffsetAndMetadata(1_000L),
                    new TopicPartition("kin", 1), new OffsetAndMetadata(1_000L));
            Map<TopicPartition, OffsetAndMetadata> committed = Map.of();
            final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() - deadline < 0) {
                committed = admin.listConsumerGroupOffsets("kafka-job")
                        .partitionsToOffsetAndMetadata()
                        .get();
                if (committed.keySet().equals(expectedOffsets.keySet())
                        && committed.values().stream().allMatch(o -> o.offset() == 1_000L)) {
                    break;
                }
                Thread.sleep(100);
            }
            assertThat(committed).hasSize(2);
            committed.values().forEach(offset -> assertThat(offset.offset()).isEqualTo(1_000L));
        } finally {
            job.cancel().get();
        }
    }

    /**
     * The exactly-once sink on Apache Kafka's transaction coordinator: a bounded job with checkpoints writes 2,000
     * records in transactions committed by the committer (resumed by handle), and kafka-clients' read_committed
     * consumer sees each exactly once.
     */
    @Test
    void shouldWriteExactlyOnceThroughKafkasTransactions() throws Exception {
        createTopic("keos", 2);
        final List<Long> input = new ArrayList<>();
        for (long i = 0; i < 2_000; i++) {
            input.add(i);
        }
        final StreamExecutionEnvironment env = FlinkTestJobs.failFast(2);
        env.enableCheckpointing(100);
        env.fromData(input)
                .sinkTo(IsthmusSink.<Long>builder()
                        .setBootstrapServers(kafka.bootstrapServers())
                        .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                        .setTransactionalIdPrefix("keos-job")
                        .setRecordSerializer((value, context, timestamp) -> new ProducerRecord<>(
                                "keos", null, null, Long.toString(value).getBytes(StandardCharsets.UTF_8)))
                        .build());
        env.execute("exactly once into kafka");

        final List<String> written = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(
                Map.of(
                        "bootstrap.servers", kafka.bootstrapServers(),
                        "auto.offset.reset", "earliest",
                        "isolation.level", "read_committed"),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.assign(List.of(new TopicPartition("keos", 0), new TopicPartition("keos", 1)));
            final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (written.size() < 2_000 && System.nanoTime() - deadline < 0) {
                for (final ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    written.add(new String(record.value(), StandardCharsets.UTF_8));
                }
            }
            for (final ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofSeconds(1))) {
                written.add(new String(record.value(), StandardCharsets.UTF_8));
            }
        }
        final List<String> expected = new ArrayList<>();
        for (long i = 0; i < 2_000; i++) {
            expected.add(Long.toString(i));
        }
        assertThat(written).containsExactlyInAnyOrderElementsOf(expected);
    }
}
