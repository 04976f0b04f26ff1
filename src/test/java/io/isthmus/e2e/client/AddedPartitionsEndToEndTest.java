package io.isthmus.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.broker.Broker;
import io.isthmus.client.admin.IsthmusAdmin;
import io.isthmus.client.consumer.ConsumedRecord;
import io.isthmus.client.consumer.ConsumerBatch;
import io.isthmus.client.consumer.IsthmusConsumer;
import io.isthmus.client.producer.IsthmusProducer;
import io.isthmus.client.producer.RecordMetadata;
import io.isthmus.e2e.EmbeddedBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link IsthmusAdmin#createPartitions} and {@link IsthmusAdmin#listConsumerGroupOffsets} against an in-process isthmus
 * broker: the isthmus producer and a subscribed isthmus consumer made before a topic grows reach its new partitions,
 * and a group's committed offsets (kafka-clients commits them, new partitions included) read back through the admin.
 */
class AddedPartitionsEndToEndTest {
    /** Short, so clients made before the growth pick it up within the test's patience. */
    private static final String METADATA_MAX_AGE_MS = "300";

    @TempDir
    static Path logDir;

    private static Broker broker;
    private static IsthmusAdmin admin;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = EmbeddedBroker.start(logDir);
        admin = new IsthmusAdmin(broker.bootstrapServers());
    }

    @AfterAll
    static void stopBroker() throws Exception {
        admin.close();
        broker.close();
    }

    @Test
    void shouldGrowATopicWhoseNewPartitionsTheIsthmusProducerAndGroupConsumerThenUse() throws Exception {
        final String topic = "grown-by-isthmus";
        admin.createTopic(topic, 1, (short) 1);
        try (IsthmusProducer producer = new IsthmusProducer(Map.of(
                        "bootstrap.servers",
                        broker.bootstrapServers(),
                        "transport",
                        "tcp",
                        "metadata.max.age.ms",
                        METADATA_MAX_AGE_MS));
                IsthmusConsumer consumer = new IsthmusConsumer(Map.of(
                        "bootstrap.servers", broker.bootstrapServers(),
                        "transport", "tcp",
                        "group.id", "isthmus-growers",
                        "auto.offset.reset", "earliest",
                        "metadata.max.age.ms", METADATA_MAX_AGE_MS))) {
            producer.sendAsync(topic, 0, IsthmusProducer.NOW, null, bytes("before"), null)
                    .get();
            consumer.subscribe(List.of(topic));
            final List<String> read = new ArrayList<>();
            pollUntil(consumer, read, "0:before");
            assertThat(consumer.assignment()).containsExactly(new TopicPartition(topic, 0));
            assertThat(producer.partitionCount(topic)).isEqualTo(1);

            admin.createPartitions(topic, 3);

            assertThat(admin.partitionsOf(topic)).hasSize(3);
            // A send to a partition the producer has not heard of yet looks at the metadata again.
            final RecordMetadata written = producer.sendAsync(
                            topic, 2, IsthmusProducer.NOW, null, bytes("in-a-new-partition"), null)
                    .get();
            assertThat(written.partition()).isEqualTo(2);
            assertThat(written.offset()).isZero();
            assertThat(producer.partitionCount(topic)).isEqualTo(3);
            assertThatThrownBy(() -> producer.send(topic, 3, IsthmusProducer.NOW, null, bytes("nowhere"), null, null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("partition=3")
                    .hasMessageContaining("partitions=3");

            // The group's leader (this consumer) sees the new count on its next check and rebalances.
            pollUntil(consumer, read, "2:in-a-new-partition");
            assertThat(consumer.assignment())
                    .containsExactlyInAnyOrder(
                            new TopicPartition(topic, 0), new TopicPartition(topic, 1), new TopicPartition(topic, 2));
        }
    }

    @Test
    void shouldSpreadKeyedRecordsOverAddedPartitionsOnceTheProducersMetadataIsRefreshed() throws Exception {
        final String topic = "grown-under-keys";
        admin.createTopic(topic, 1, (short) 1);
        try (IsthmusProducer producer = new IsthmusProducer(Map.of(
                "bootstrap.servers",
                broker.bootstrapServers(),
                "transport",
                "tcp",
                "metadata.max.age.ms",
                METADATA_MAX_AGE_MS))) {
            assertThat(producer.partitionCount(topic)).isEqualTo(1);

            admin.createPartitions(topic, 4);

            final long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (producer.partitionCount(topic) < 4 && System.nanoTime() - deadline < 0) {
                Thread.sleep(50);
            }
            assertThat(producer.partitionCount(topic))
                    .as("after metadata.max.age.ms")
                    .isEqualTo(4);
            final Set<Integer> partitions = new TreeSet<>();
            for (int i = 0; i < 64; i++) {
                partitions.add(producer.sendAsync(
                                topic,
                                IsthmusProducer.ANY_PARTITION,
                                IsthmusProducer.NOW,
                                bytes("key-" + i),
                                bytes("v"),
                                null)
                        .get()
                        .partition());
            }
            assertThat(partitions).containsExactly(0, 1, 2, 3);
        }
    }

    @Test
    void shouldFailWithKafkasExceptionNamingTopicAndCount() {
        admin.createTopic("fixed-size", 2, (short) 1);

        assertThatThrownBy(() -> admin.createPartitions("fixed-size", 2))
                .isInstanceOf(InvalidPartitionsException.class)
                .hasMessageContaining("topic=fixed-size")
                .hasMessageContaining("count=2")
                .hasMessageContaining("already has 2 partitions");
        assertThatThrownBy(() -> admin.createPartitions("fixed-size", 1))
                .isInstanceOf(InvalidPartitionsException.class)
                .hasMessageContaining("1 would not be an increase");
        assertThatThrownBy(() -> admin.createPartitions("no-such-topic", 3))
                .isInstanceOf(UnknownTopicOrPartitionException.class)
                .hasMessageContaining("topic=no-such-topic");
        assertThat(admin.partitionsOf("fixed-size")).hasSize(2);
    }

    @Test
    void shouldListTheOffsetsAKafkaConsumerCommittedIncludingOnesOfAddedPartitions() {
        final String topic = "committed-by-kafka";
        admin.createTopic(topic, 2, (short) 1);
        admin.createPartitions(topic, 3);
        final TopicPartition p0 = new TopicPartition(topic, 0);
        final TopicPartition p1 = new TopicPartition(topic, 1);
        final TopicPartition p2 = new TopicPartition(topic, 2);
        try (KafkaConsumer<byte[], byte[]> committer = new KafkaConsumer<>(
                Map.of("bootstrap.servers", broker.bootstrapServers(), "group.id", "kafka-committers"),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            committer.commitSync(Map.of(p0, new OffsetAndMetadata(5), p2, new OffsetAndMetadata(9)));
        }

        assertThat(admin.listConsumerGroupOffsets("kafka-committers", List.of(p0, p1, p2)))
                .containsOnly(Map.entry(p0, 5L), Map.entry(p2, 9L));
        assertThat(admin.listConsumerGroupOffsets("kafka-committers", Set.of(p1)))
                .as("a partition without a committed offset is absent")
                .isEmpty();
    }

    private static byte[] bytes(final String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Polls, noting each record as {@code partition:value}, until {@code wanted} is among them. */
    private static void pollUntil(final IsthmusConsumer consumer, final List<String> read, final String wanted) {
        final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!read.contains(wanted) && System.nanoTime() - deadline < 0) {
            try (ConsumerBatch batch = consumer.poll(Duration.ofMillis(100))) {
                for (final ConsumedRecord record : batch) {
                    read.add(record.partition() + ":" + record.valueAsString());
                }
            }
        }
        assertThat(read).as("assignment=%s", consumer.assignment()).contains(wanted);
    }
}
