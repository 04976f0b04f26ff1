package io.isthmus.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.isthmus.client.cluster.BrokerConnections;
import io.isthmus.client.network.ReceiveBufferPool;
import io.isthmus.client.security.SecuritySettings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreatePartitionsOptions;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kafka-clients 4.4's {@code Admin#createPartitions} against an isthmus broker: the topic grows, Kafka's producer and
 * consumers (assigned and subscribed) reach the new partitions after a metadata refresh, Kafka's errors come back as
 * Kafka's exceptions, {@code validateOnly} changes nothing, and the new partitions with their records survive a
 * restart on the same log directory.
 */
class CreatePartitionsCompatibilityTest {
    /** Not 0, so an assignment naming broker 0 is one to a broker that does not exist. */
    private static final int NODE_ID = 3;
    /** Short, so clients made before the growth pick it up within the test's patience. */
    private static final String METADATA_MAX_AGE_MS = "300";

    @TempDir
    Path dir;

    private Broker broker;

    private void startBroker() throws Exception {
        broker = Broker.startEmbedded(dir, Map.of("node.id", Integer.toString(NODE_ID), "num.network.threads", "2"));
    }

    @AfterEach
    void stopBroker() throws Exception {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void shouldGrowATopicWhoseNewPartitionsKafkasProducerAndConsumersThenUse() throws Exception {
        startBroker();
        final String topic = "growing";
        try (Admin admin = admin();
                KafkaProducer<byte[], byte[]> producer = producer();
                KafkaConsumer<byte[], byte[]> member = consumer("growers")) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
            // Both clients learn the topic with one partition before it grows.
            producer.send(record(topic, 0, "before")).get();
            member.subscribe(List.of(topic));
            final List<String> read = new ArrayList<>();
            pollUntil(
                    member,
                    records -> {
                        records.forEach(r -> read.add(r.partition() + ":" + value(r)));
                        return read.contains("0:before");
                    },
                    Duration.ofSeconds(30));
            assertThat(member.assignment()).containsExactly(new TopicPartition(topic, 0));

            admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(3)))
                    .all()
                    .get();

            assertThat(admin.describeTopics(List.of(topic))
                            .allTopicNames()
                            .get()
                            .get(topic)
                            .partitions())
                    .hasSize(3);
            final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (producer.partitionsFor(topic).size() < 3 && System.nanoTime() - deadline < 0) {
                Thread.sleep(50);
            }
            assertThat(producer.partitionsFor(topic)).hasSize(3);
            final RecordMetadata written =
                    producer.send(record(topic, 2, "in-a-new-partition")).get();
            assertThat(written.partition()).isEqualTo(2);
            assertThat(written.offset()).isZero();

            // The group's leader sees the count change on its next metadata refresh and rebalances.
            pollUntil(
                    member,
                    records -> {
                        records.forEach(r -> read.add(r.partition() + ":" + value(r)));
                        return read.contains("2:in-a-new-partition");
                    },
                    Duration.ofSeconds(30));
            assertThat(member.assignment())
                    .containsExactlyInAnyOrder(
                            new TopicPartition(topic, 0), new TopicPartition(topic, 1), new TopicPartition(topic, 2));
        }
        try (KafkaConsumer<byte[], byte[]> assigned = consumer(null)) {
            final TopicPartition two = new TopicPartition(topic, 2);
            assigned.assign(List.of(two));
            assigned.seekToBeginning(List.of(two));
            final List<String> values = new ArrayList<>();
            pollUntil(
                    assigned,
                    records -> {
                        records.forEach(r -> values.add(value(r)));
                        return !values.isEmpty();
                    },
                    Duration.ofSeconds(20));
            assertThat(values).containsExactly("in-a-new-partition");
        }
    }

    @Test
    void shouldAnswerKafkasErrorsAndLeaveTheTopicAsItWas() throws Exception {
        startBroker();
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic("fixed", 3, (short) 1)))
                    .all()
                    .get();

            assertThatThrownBy(() -> grow(admin, "fixed", NewPartitions.increaseTo(3)))
                    .hasCauseInstanceOf(InvalidPartitionsException.class)
                    .hasMessageContaining("already has 3 partitions");
            assertThatThrownBy(() -> grow(admin, "fixed", NewPartitions.increaseTo(2)))
                    .hasCauseInstanceOf(InvalidPartitionsException.class)
                    .hasMessageContaining("2 would not be an increase");
            assertThatThrownBy(() -> grow(admin, "absent", NewPartitions.increaseTo(2)))
                    .hasCauseInstanceOf(UnknownTopicOrPartitionException.class);
            assertThatThrownBy(() -> grow(admin, "fixed", NewPartitions.increaseTo(4, List.of(List.of(0)))))
                    .as("an assignment to a broker that does not exist")
                    .hasCauseInstanceOf(InvalidReplicaAssignmentException.class)
                    .hasMessageContaining("broker " + NODE_ID + " is the only one");
            assertThatThrownBy(
                            () -> grow(admin, "fixed", NewPartitions.increaseTo(4, List.of(List.of(NODE_ID, NODE_ID)))))
                    .as("two replicas")
                    .hasCauseInstanceOf(InvalidReplicaAssignmentException.class);
            assertThatThrownBy(() -> grow(admin, "fixed", NewPartitions.increaseTo(5, List.of(List.of(NODE_ID)))))
                    .as("one assignment for two new partitions")
                    .hasCauseInstanceOf(InvalidReplicaAssignmentException.class)
                    .hasMessageContaining("adding 2, but 1 assignments were given");

            assertThat(partitionCount(admin, "fixed")).isEqualTo(3);

            grow(admin, "fixed", NewPartitions.increaseTo(5, List.of(List.of(NODE_ID), List.of(NODE_ID))));
            assertThat(partitionCount(admin, "fixed")).isEqualTo(5);
        }
    }

    /** Admin's API takes a map, so it cannot name a topic twice; the request is sent as any client could send it. */
    @Test
    void shouldRefuseATopicNamedTwiceInOneRequestWithInvalidRequest() throws Exception {
        startBroker();
        try (Admin admin = admin();
                ReceiveBufferPool pool = new ReceiveBufferPool(64 * 1024);
                BrokerConnections connections = new BrokerConnections(
                        BrokerConnections.parseBootstrap(broker.bootstrapServers()),
                        "duplicates",
                        pool,
                        Duration.ofSeconds(10),
                        SecuritySettings.PLAINTEXT)) {
            admin.createTopics(List.of(new NewTopic("twice", 1, (short) 1), new NewTopic("once", 1, (short) 1)))
                    .all()
                    .get();
            final CreatePartitionsRequestData request =
                    new CreatePartitionsRequestData().setTimeoutMs(10_000).setValidateOnly(false);
            for (final Object[] entry : new Object[][] {{"twice", 2}, {"once", 2}, {"twice", 3}}) {
                request.topics()
                        .add(new CreatePartitionsRequestData.CreatePartitionsTopic()
                                .setName((String) entry[0])
                                .setCount((Integer) entry[1])
                                .setAssignments(null));
            }

            final CreatePartitionsResponseData response = (CreatePartitionsResponseData)
                    connections.any().request(ApiKeys.CREATE_PARTITIONS, request, Duration.ofSeconds(10));

            assertThat(response.results())
                    .extracting(
                            CreatePartitionsResponseData.CreatePartitionsTopicResult::name,
                            r -> Errors.forCode(r.errorCode()))
                    .containsExactly(tuple("twice", Errors.INVALID_REQUEST), tuple("once", Errors.NONE));
            assertThat(partitionCount(admin, "twice")).isEqualTo(1);
            assertThat(partitionCount(admin, "once")).isEqualTo(2);
        }
    }

    @Test
    void shouldOnlyCheckWithValidateOnly() throws Exception {
        startBroker();
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic("checked", 2, (short) 1)))
                    .all()
                    .get();
            final CreatePartitionsOptions validateOnly = new CreatePartitionsOptions().validateOnly(true);

            admin.createPartitions(Map.of("checked", NewPartitions.increaseTo(6)), validateOnly)
                    .all()
                    .get();
            assertThat(partitionCount(admin, "checked")).isEqualTo(2);
            assertThat(dir.resolve("checked-2")).doesNotExist();
            assertThatThrownBy(
                            () -> admin.createPartitions(Map.of("checked", NewPartitions.increaseTo(2)), validateOnly)
                                    .all()
                                    .get())
                    .hasCauseInstanceOf(InvalidPartitionsException.class);
            assertThatThrownBy(() -> admin.createPartitions(
                                    Map.of("checked", NewPartitions.increaseTo(3, List.of(List.of(NODE_ID + 1)))),
                                    validateOnly)
                            .all()
                            .get())
                    .hasCauseInstanceOf(InvalidReplicaAssignmentException.class);
        }
    }

    @Test
    void shouldKeepAddedPartitionsAndTheirRecordsAcrossARestart() throws Exception {
        startBroker();
        final String topic = "durable";
        try (Admin admin = admin();
                KafkaProducer<byte[], byte[]> producer = producer()) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
            grow(admin, topic, NewPartitions.increaseTo(4));
            for (int p = 0; p < 4; p++) {
                producer.send(record(topic, p, "first-" + p)).get();
            }
        }
        broker.close();
        broker = null;

        startBroker();
        try (Admin admin = admin();
                KafkaProducer<byte[], byte[]> producer = producer();
                KafkaConsumer<byte[], byte[]> consumer = consumer(null)) {
            assertThat(partitionCount(admin, topic)).isEqualTo(4);
            final RecordMetadata appended =
                    producer.send(record(topic, 3, "second-3")).get();
            assertThat(appended.offset())
                    .as("after the record written before the restart")
                    .isEqualTo(1);

            final List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < 4; p++) {
                partitions.add(new TopicPartition(topic, p));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            final Set<String> read = new HashSet<>();
            pollUntil(
                    consumer,
                    records -> {
                        records.forEach(r -> read.add(r.partition() + ":" + value(r)));
                        return read.size() == 5;
                    },
                    Duration.ofSeconds(20));
            assertThat(read)
                    .containsExactlyInAnyOrder("0:first-0", "1:first-1", "2:first-2", "3:first-3", "3:second-3");

            grow(admin, topic, NewPartitions.increaseTo(5));
            assertThat(partitionCount(admin, topic)).isEqualTo(5);
        }
    }

    // ------------------------------------------------------------------ helpers

    private interface PollCondition {
        boolean done(Iterable<ConsumerRecord<byte[], byte[]>> records);
    }

    private static void pollUntil(
            final KafkaConsumer<byte[], byte[]> consumer, final PollCondition condition, final Duration patience) {
        final long deadline = System.nanoTime() + patience.toNanos();
        while (System.nanoTime() - deadline < 0) {
            if (condition.done(consumer.poll(Duration.ofMillis(100)))) {
                return;
            }
        }
        throw new AssertionError("not done after " + patience + ": assignment=" + consumer.assignment());
    }

    private static void grow(final Admin admin, final String topic, final NewPartitions to)
            throws InterruptedException, ExecutionException {
        admin.createPartitions(Map.of(topic, to)).all().get();
    }

    private static int partitionCount(final Admin admin, final String topic) throws Exception {
        return admin.describeTopics(List.of(topic))
                .allTopicNames()
                .get()
                .get(topic)
                .partitions()
                .size();
    }

    private static ProducerRecord<byte[], byte[]> record(final String topic, final int partition, final String value) {
        return new ProducerRecord<>(topic, partition, null, value.getBytes(StandardCharsets.UTF_8));
    }

    private static String value(final ConsumerRecord<byte[], byte[]> record) {
        return new String(record.value(), StandardCharsets.UTF_8);
    }

    private Admin admin() {
        return Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()));
    }

    private KafkaProducer<byte[], byte[]> producer() {
        final Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        props.put(ProducerConfig.METADATA_MAX_AGE_CONFIG, METADATA_MAX_AGE_MS);
        return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private KafkaConsumer<byte[], byte[]> consumer(final String groupId) {
        final Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, METADATA_MAX_AGE_MS);
        if (groupId != null) {
            props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        }
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }
}
