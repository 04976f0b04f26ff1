package io.isthmus.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.LogTruncationException;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The real kafka-clients 4.4 (producer, consumer, admin) against an isthmus broker: every record that was
 * acknowledged is read back byte-identical, in the partition Kafka's default partitioner chose.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaClientsCompatibilityTest {
    private static final int RECORDS = 100_000;
    private static final int PARTITIONS = 4;

    private Broker broker;

    @BeforeAll
    void startBroker(@TempDir final Path dir) throws Exception {
        broker = Broker.startEmbedded(dir, Map.of("log.segment.bytes", "8388608", "num.network.threads", "2"));
    }

    @AfterAll
    void stopBroker() throws Exception {
        broker.close();
    }

    @ParameterizedTest(name = "compression={0}")
    @ValueSource(strings = {"none", "lz4", "zstd"})
    void shouldReadBackEveryRecordOfAnIdempotentAcksAllProducer(final String compression) throws Exception {
        final String topic = "compat-" + compression;
        createTopic(topic, PARTITIONS);
        final List<Sent> sent = produce(topic, compression, RECORDS);

        final Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> received = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(null)) {
            final List<TopicPartition> partitions = partitionsOf(topic);
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            int count = 0;
            final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (count < RECORDS && System.nanoTime() < deadline) {
                for (final ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    received.computeIfAbsent(
                                    new TopicPartition(record.topic(), record.partition()), tp -> new ArrayList<>())
                            .add(record);
                    count++;
                }
            }
            assertThat(count).isEqualTo(RECORDS);
        }
        assertIdentical(sent, received);
    }

    @Test
    void aDecompressionBombGetsMessageTooLargeAndTheBrokerServesOn() throws Exception {
        final String topic = "decompression-bomb";
        createTopic(topic, 1);
        final Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "gzip");
        // Past the client's own check (it measures the record uncompressed): the broker must be the one to refuse.
        props.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(64 << 20));
        props.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Integer.toString(128 << 20));
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            // 32 MiB of zeros: a batch of a few KiB on the wire, 32 MiB once decompressed, over message.max.bytes.
            final var bomb = producer.send(new ProducerRecord<>(topic, 0, null, new byte[32 << 20]));
            assertThatThrownBy(bomb::get).hasCauseInstanceOf(RecordTooLargeException.class);
            final RecordMetadata after = producer.send(
                            new ProducerRecord<>(topic, 0, null, "after".getBytes(StandardCharsets.UTF_8)))
                    .get();
            assertThat(after.offset()).isZero();
        }
    }

    @Test
    void shouldResumeAGroupAfterItsCommittedOffsets() throws Exception {
        final String topic = "group-resume";
        final int records = 20_000;
        createTopic(topic, PARTITIONS);
        produce(topic, "none", records);

        final Set<String> seen = new HashSet<>();
        final Map<TopicPartition, Long> committed = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> first = consumer("resumers")) {
            first.subscribe(List.of(topic));
            final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (seen.size() < records / 2 && System.nanoTime() < deadline) {
                final ConsumerRecords<byte[], byte[]> batch = first.poll(Duration.ofMillis(200));
                for (final ConsumerRecord<byte[], byte[]> record : batch) {
                    assertThat(seen.add(new String(record.value(), StandardCharsets.UTF_8)))
                            .isTrue();
                }
                first.commitSync();
            }
            assertThat(first.assignment()).hasSize(PARTITIONS);
            for (final TopicPartition tp : first.assignment()) {
                committed.put(
                        tp,
                        first.committed(Set.of(tp)).get(tp) == null
                                ? 0
                                : first.committed(Set.of(tp)).get(tp).offset());
            }
        }
        assertThat(seen.size()).isGreaterThanOrEqualTo(records / 2);

        try (KafkaConsumer<byte[], byte[]> second = consumer("resumers")) {
            second.subscribe(List.of(topic));
            final Map<TopicPartition, Long> firstOffsetSeen = new HashMap<>();
            final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (seen.size() < records && System.nanoTime() < deadline) {
                for (final ConsumerRecord<byte[], byte[]> record : second.poll(Duration.ofMillis(200))) {
                    firstOffsetSeen.putIfAbsent(
                            new TopicPartition(record.topic(), record.partition()), record.offset());
                    assertThat(seen.add(new String(record.value(), StandardCharsets.UTF_8)))
                            .as(
                                    "record at offset %d of partition %d was delivered twice",
                                    record.offset(), record.partition())
                            .isTrue();
                }
            }
            second.commitSync();
            assertThat(seen).hasSize(records);
            firstOffsetSeen.forEach((tp, offset) -> assertThat(offset).isEqualTo(committed.get(tp)));
        }
    }

    @Test
    void shouldCreateListDescribeAndDeleteTopicsWithAdminClient() throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic("admin-a", 3, (short) 1), new NewTopic("admin-b", 1, (short) 1)))
                    .all()
                    .get();
            assertThat(admin.listTopics().names().get()).contains("admin-a", "admin-b");
            final TopicDescription described = admin.describeTopics(List.of("admin-a"))
                    .allTopicNames()
                    .get()
                    .get("admin-a");
            assertThat(described.partitions()).hasSize(3);
            assertThat(described.topicId()).isNotNull();
            assertThat(admin.describeCluster().nodes().get()).hasSize(1);

            admin.deleteTopics(List.of("admin-b")).all().get();
            assertThat(admin.listTopics().names().get()).contains("admin-a").doesNotContain("admin-b");
            assertThat(admin.createTopics(List.of(new NewTopic("admin-a", 1, (short) 1)))
                            .all())
                    .failsWithin(Duration.ofSeconds(10))
                    .withThrowableThat()
                    .withMessageContaining("already exists");
        }
    }

    private record Sent(byte[] key, byte[] value, Header[] headers, int partition, long offset) {}

    private List<Sent> produce(final String topic, final String compression, final int count) throws Exception {
        final Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, compression);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        final List<byte[][]> inputs = new ArrayList<>(count);
        final List<Future<RecordMetadata>> acks = new ArrayList<>(count);
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < count; i++) {
                final byte[] key = ("key-" + (i % 997)).getBytes(StandardCharsets.UTF_8);
                final byte[] value =
                        (topic + "-value-" + i + "-" + "x".repeat(i % 50)).getBytes(StandardCharsets.UTF_8);
                final Header[] headers = {
                    new RecordHeader("seq", Integer.toString(i).getBytes(StandardCharsets.UTF_8)),
                    new RecordHeader("empty", (byte[]) null)
                };
                inputs.add(new byte[][] {key, value});
                acks.add(producer.send(new ProducerRecord<>(topic, null, key, value, Arrays.asList(headers))));
            }
            producer.flush();
            final List<Sent> sent = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                final RecordMetadata metadata = acks.get(i).get();
                final byte[][] input = inputs.get(i);
                final Header[] headers = {
                    new RecordHeader("seq", Integer.toString(i).getBytes(StandardCharsets.UTF_8)),
                    new RecordHeader("empty", (byte[]) null)
                };
                sent.add(new Sent(input[0], input[1], headers, metadata.partition(), metadata.offset()));
            }
            return sent;
        }
    }

    private void assertIdentical(
            final List<Sent> sent, final Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> received) {
        final Map<Integer, List<Sent>> sentByPartition = new HashMap<>();
        for (final Sent record : sent) {
            // Kafka's default partitioner for keyed records: murmur2 of the key bytes.
            assertThat(record.partition()).isEqualTo(Utils.toPositive(Utils.murmur2(record.key())) % PARTITIONS);
            sentByPartition
                    .computeIfAbsent(record.partition(), p -> new ArrayList<>())
                    .add(record);
        }
        for (final Map.Entry<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> entry : received.entrySet()) {
            final List<Sent> expected = sentByPartition.get(entry.getKey().partition());
            final List<ConsumerRecord<byte[], byte[]>> actual = entry.getValue();
            assertThat(actual).hasSameSizeAs(expected);
            for (int i = 0; i < actual.size(); i++) {
                final ConsumerRecord<byte[], byte[]> got = actual.get(i);
                final Sent want = expected.get(i);
                assertThat(got.offset()).isEqualTo(want.offset());
                assertThat(got.key()).isEqualTo(want.key());
                assertThat(got.value()).isEqualTo(want.value());
                assertThat(got.headers().toArray()).containsExactly(want.headers());
            }
        }
    }

    @Test
    void aConsumerValidatingItsPositionAfterASeekWithAnEpochIsToldWhereTheEpochEnds() throws Exception {
        final String topic = "validated-positions";
        createTopic(topic, 1);
        final TopicPartition partition = new TopicPartition(topic, 0);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()),
                new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>(topic, 0, null, ("v" + i).getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();
        }
        final Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.assign(List.of(partition));
            // A position inside epoch 0 validates (OffsetForLeaderEpoch says epoch 0 ends at 10) and is read from.
            consumer.seek(partition, new OffsetAndMetadata(5, Optional.of(0), ""));
            final List<Long> offsets = new ArrayList<>();
            final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (offsets.size() < 5 && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(100)).forEach(r -> offsets.add(r.offset()));
            }
            assertThat(offsets).containsExactly(5L, 6L, 7L, 8L, 9L);

            // A position past where its epoch ends is a truncation the consumer is told of, with the offset to go to
            // (without the API it would only see OFFSET_OUT_OF_RANGE).
            consumer.seek(partition, new OffsetAndMetadata(20, Optional.of(0), ""));
            final LogTruncationException truncation = pollUntilThrown(consumer, LogTruncationException.class);
            assertThat(truncation.divergentOffsets())
                    .containsEntry(partition, new OffsetAndMetadata(10, Optional.of(0), ""));
        }
    }

    private static <T extends Exception> T pollUntilThrown(
            final KafkaConsumer<byte[], byte[]> consumer, final Class<T> type) {
        final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                consumer.poll(Duration.ofMillis(100));
            } catch (final Exception e) {
                assertThat(e).isInstanceOf(type);
                return type.cast(e);
            }
        }
        throw new AssertionError("poll never threw " + type.getSimpleName());
    }

    private void createTopic(final String topic, final int partitions) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
                    .all()
                    .get();
        }
    }

    private List<TopicPartition> partitionsOf(final String topic) {
        final List<TopicPartition> partitions = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            partitions.add(new TopicPartition(topic, p));
        }
        return partitions;
    }

    private KafkaConsumer<byte[], byte[]> consumer(final String groupId) {
        final Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2000);
        if (groupId != null) {
            props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        }
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }
}
