package io.isthmus.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.broker.Broker;
import io.isthmus.client.admin.IsthmusAdmin;
import io.isthmus.e2e.EmbeddedBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Both directions of interop through the isthmus broker: isthmus producer to kafka-clients consumer, kafka-clients
 * producer to isthmus consumer, and a consumer group shared by an isthmus consumer and a KafkaConsumer.
 */
class KafkaClientsInteropTest {
    @TempDir
    static Path logDir;

    private static Broker broker;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = EmbeddedBroker.start(logDir);
    }

    @AfterAll
    static void stopBroker() throws Exception {
        broker.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"none", "lz4", "zstd"})
    void shouldBeReadByKafkaConsumer(final String compression) {
        final String topic = "isthmus-to-kafka-" + compression;
        try (IsthmusAdmin admin = new IsthmusAdmin(broker.bootstrapServers())) {
            admin.createTopic(topic, 3, (short) 1);
        }
        assertThat(Interop.produceWithIsthmusConsumeWithKafka(broker.bootstrapServers(), topic, compression, 3, 5000))
                .isEqualTo(5000);
    }

    @ParameterizedTest
    @ValueSource(strings = {"none", "lz4", "zstd"})
    void shouldReadWhatKafkaProducerWrote(final String compression) {
        final String topic = "kafka-to-isthmus-" + compression;
        try (IsthmusAdmin admin = new IsthmusAdmin(broker.bootstrapServers())) {
            admin.createTopic(topic, 3, (short) 1);
        }
        assertThat(Interop.produceWithKafkaConsumeWithIsthmus(broker.bootstrapServers(), topic, compression, 3, 5000))
                .isEqualTo(5000);
    }

    @org.junit.jupiter.api.Test
    void shouldShareAGroupWithAKafkaConsumer() throws Exception {
        final String topic = "shared-group";
        try (IsthmusAdmin admin = new IsthmusAdmin(broker.bootstrapServers())) {
            admin.createTopic(topic, 4, (short) 1);
        }
        assertThat(Interop.shareGroupWithKafkaConsumer(broker.bootstrapServers(), topic, 4, 4000))
                .isEqualTo(4000);
    }

    /**
     * kafka-clients' Admin grows a topic; its producer writes to a new partition and a KafkaConsumer reads it back; the
     * isthmus admin grows it further and sees Kafka's errors for a count that is not larger.
     */
    @org.junit.jupiter.api.Test
    void shouldAddPartitionsThroughKafkasAdminAndTheIsthmusAdmin() throws Exception {
        final String topic = "growing";
        final Map<String, Object> bootstrap = Map.of("bootstrap.servers", broker.bootstrapServers());
        try (Admin kafkaAdmin = Admin.create(bootstrap);
                IsthmusAdmin admin = new IsthmusAdmin(broker.bootstrapServers())) {
            admin.createTopic(topic, 1, (short) 1);
            kafkaAdmin
                    .createPartitions(Map.of(topic, NewPartitions.increaseTo(3)))
                    .all()
                    .get();
            assertThat(kafkaAdmin
                            .describeTopics(List.of(topic))
                            .allTopicNames()
                            .get()
                            .get(topic)
                            .partitions())
                    .hasSize(3);
            try (KafkaProducer<byte[], byte[]> producer =
                    new KafkaProducer<>(bootstrap, new ByteArraySerializer(), new ByteArraySerializer())) {
                producer.send(new ProducerRecord<>(topic, 2, null, "in-a-new-partition".getBytes()))
                        .get();
            }
            try (KafkaConsumer<byte[], byte[]> consumer =
                    new KafkaConsumer<>(bootstrap, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
                final TopicPartition two = new TopicPartition(topic, 2);
                consumer.assign(List.of(two));
                consumer.seekToBeginning(List.of(two));
                final List<String> values = new ArrayList<>();
                final long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                while (values.isEmpty() && System.nanoTime() - deadline < 0) {
                    consumer.poll(Duration.ofMillis(200)).forEach(r -> values.add(new String(r.value())));
                }
                assertThat(values).containsExactly("in-a-new-partition");
            }
            admin.createPartitions(topic, 5);
            assertThat(admin.partitionsOf(topic)).hasSize(5);
            assertThatThrownBy(() -> admin.createPartitions(topic, 5))
                    .isInstanceOf(InvalidPartitionsException.class)
                    .hasMessageContaining("topic=growing");
            assertThatThrownBy(() -> kafkaAdmin
                            .createPartitions(Map.of("no-such-topic", NewPartitions.increaseTo(2)))
                            .all()
                            .get())
                    .hasCauseInstanceOf(UnknownTopicOrPartitionException.class);
        }
    }
}
