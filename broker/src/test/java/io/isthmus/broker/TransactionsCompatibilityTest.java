package io.isthmus.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * kafka-clients 4.4's transactional producer and read_committed consumer against an isthmus broker: each case asserts
 * the exact records a read_committed consumer sees, in order, and what a read_uncommitted one sees beside it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TransactionsCompatibilityTest {
    private static final int TIMEOUT_CHECK_MS = 200;

    private Broker broker;
    private Admin admin;

    @BeforeAll
    void startBroker(@TempDir final Path dir) throws Exception {
        broker = Broker.startEmbedded(
                dir,
                Map.of(
                        "log.segment.bytes",
                        "8388608",
                        "transaction.abort.timed.out.transaction.cleanup.interval.ms",
                        Integer.toString(TIMEOUT_CHECK_MS)));
        admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()));
    }

    @AfterAll
    void stopBroker() throws Exception {
        admin.close();
        broker.close();
    }

    @Test
    void shouldShowACommittedTransactionToReadCommittedConsumers() throws Exception {
        final String topic = topic(2);
        try (KafkaProducer<String, String> producer = transactional("commit")) {
            producer.initTransactions();
            producer.beginTransaction();
            sendRange(producer, topic, "a", 0, 10);
            producer.commitTransaction();
        }
        assertThat(readAll(topic, IsolationLevel.READ_COMMITTED, 10)).containsExactlyElementsOf(values("a", 0, 10));
    }

    @Test
    void shouldHideAnAbortedTransactionFromReadCommittedButNotFromReadUncommitted() throws Exception {
        final String topic = topic(1);
        try (KafkaProducer<String, String> producer = transactional("abort")) {
            producer.initTransactions();
            producer.beginTransaction();
            sendRange(producer, topic, "x", 0, 10);
            producer.flush();
            producer.abortTransaction();
            producer.beginTransaction();
            sendRange(producer, topic, "y", 0, 1);
            producer.commitTransaction();
        }
        assertThat(readAll(topic, IsolationLevel.READ_COMMITTED, 1)).containsExactly("y-0");
        assertThat(readAll(topic, IsolationLevel.READ_UNCOMMITTED, 11))
                .containsExactlyElementsOf(concat(values("x", 0, 10), values("y", 0, 1)));
    }

    @Test
    void shouldInterleaveCommitAbortCommitExactly() throws Exception {
        final String topic = topic(1);
        try (KafkaProducer<String, String> producer = transactional("interleaved")) {
            producer.initTransactions();
            for (final String round : List.of("first", "second", "third")) {
                producer.beginTransaction();
                sendRange(producer, topic, round, 0, 50);
                producer.flush();
                if (round.equals("second")) {
                    producer.abortTransaction();
                } else {
                    producer.commitTransaction();
                }
            }
        }
        assertThat(readAll(topic, IsolationLevel.READ_COMMITTED, 100))
                .containsExactlyElementsOf(concat(values("first", 0, 50), values("third", 0, 50)));
    }

    @Test
    void shouldHoldBackTheLastStableOffsetWhileATransactionIsOpen() throws Exception {
        final String topic = topic(1);
        final TopicPartition partition = new TopicPartition(topic, 0);
        try (KafkaProducer<String, String> open = transactional("open");
                KafkaProducer<String, String> later = transactional("later")) {
            open.initTransactions();
            later.initTransactions();
            open.beginTransaction();
            sendRange(open, topic, "open", 0, 5);
            open.flush();
            later.beginTransaction();
            sendRange(later, topic, "later", 0, 5);
            later.commitTransaction();

            try (KafkaConsumer<String, String> consumer = consumer(IsolationLevel.READ_COMMITTED, null)) {
                consumer.assign(List.of(partition));
                consumer.seekToBeginning(List.of(partition));
                assertThat(consumer.endOffsets(List.of(partition)).get(partition))
                        .as("read_committed end offset is the open transaction's first offset")
                        .isZero();
                assertThat(poll(consumer, Duration.ofSeconds(2))).isEmpty();

                open.commitTransaction();
                final List<String> seen = new ArrayList<>();
                final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (seen.size() < 10 && System.nanoTime() < deadline) {
                    seen.addAll(poll(consumer, Duration.ofMillis(200)));
                }
                assertThat(seen).containsExactlyElementsOf(concat(values("open", 0, 5), values("later", 0, 5)));
                // 10 records and 2 markers.
                assertThat(consumer.endOffsets(List.of(partition)).get(partition))
                        .isEqualTo(12);
            }
        }
    }

    @Test
    void shouldFenceAProducerWhenAnotherInitialisesTheSameTransactionalId() throws Exception {
        final String topic = topic(1);
        final String transactionalId = "fenced-" + UUID.randomUUID();
        final KafkaProducer<String, String> zombie = transactional(transactionalId);
        try (zombie) {
            zombie.initTransactions();
            zombie.beginTransaction();
            sendRange(zombie, topic, "zombie", 0, 5);
            zombie.flush();
            try (KafkaProducer<String, String> successor = transactional(transactionalId)) {
                successor.initTransactions();
                assertThatThrownBy(zombie::commitTransaction).isInstanceOf(ProducerFencedException.class);
                successor.beginTransaction();
                sendRange(successor, topic, "successor", 0, 5);
                successor.commitTransaction();
            }
        }
        assertThat(readAll(topic, IsolationLevel.READ_COMMITTED, 5))
                .containsExactlyElementsOf(values("successor", 0, 5));
    }

    @Test
    void shouldCommitConsumedOffsetsOnlyWithTheTransactionInAConsumeTransformProduceLoop() throws Exception {
        final String input = topic(2);
        final String output = topic(1);
        final String group = "ctp-" + UUID.randomUUID();
        final int records = 200;
        try (KafkaProducer<String, String> seed = transactional("seed-" + UUID.randomUUID())) {
            seed.initTransactions();
            seed.beginTransaction();
            sendRange(seed, input, "in", 0, records);
            seed.commitTransaction();
        }
        final List<String> transformedOnce = new ArrayList<>();
        try (KafkaProducer<String, String> producer = transactional("ctp-" + UUID.randomUUID());
                KafkaConsumer<String, String> consumer = consumer(IsolationLevel.READ_COMMITTED, group)) {
            producer.initTransactions();
            consumer.subscribe(List.of(input));
            int round = 0;
            final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (transformedOnce.size() < records && System.nanoTime() < deadline) {
                final var polled = consumer.poll(Duration.ofMillis(200));
                if (polled.isEmpty()) {
                    continue;
                }
                final Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
                final List<String> batch = new ArrayList<>();
                producer.beginTransaction();
                for (final ConsumerRecord<String, String> record : polled) {
                    final String transformed = record.value().toUpperCase();
                    producer.send(new ProducerRecord<>(output, record.key(), transformed));
                    batch.add(transformed);
                    next.put(
                            new TopicPartition(record.topic(), record.partition()),
                            new OffsetAndMetadata(record.offset() + 1));
                }
                producer.sendOffsetsToTransaction(next, consumer.groupMetadata());
                if (round++ == 1) {
                    // An aborted round: its output vanishes and its offsets are not committed, so the consumer
                    // rewinds and transforms the same records again.
                    producer.abortTransaction();
                    for (final TopicPartition partition : next.keySet()) {
                        final OffsetAndMetadata committed =
                                consumer.committed(Set.of(partition)).get(partition);
                        consumer.seek(partition, committed == null ? 0 : committed.offset());
                    }
                } else {
                    producer.commitTransaction();
                    transformedOnce.addAll(batch);
                }
            }
        }
        assertThat(transformedOnce).hasSize(records);
        final List<String> output0 = readAll(output, IsolationLevel.READ_COMMITTED, records);
        assertThat(output0).containsExactlyInAnyOrderElementsOf(upper(values("in", 0, records)));
        final Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get();
        long total = 0;
        for (final OffsetAndMetadata offset : committed.values()) {
            total += offset.offset();
        }
        // All input went to partition 0: its committed offset is the one after its last record.
        assertThat(total).isEqualTo(records);
    }

    @Test
    void shouldAbortATransactionOpenPastItsTimeoutAndFenceItsProducer() throws Exception {
        final String topic = topic(1);
        final Properties settings = new Properties();
        settings.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 1000);
        try (KafkaProducer<String, String> producer = transactional("timeout-" + UUID.randomUUID(), settings)) {
            producer.initTransactions();
            producer.beginTransaction();
            sendRange(producer, topic, "late", 0, 5);
            producer.flush();
            final TopicPartition partition = new TopicPartition(topic, 0);
            try (KafkaConsumer<String, String> consumer = consumer(IsolationLevel.READ_COMMITTED, null)) {
                final long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                while (consumer.endOffsets(List.of(partition)).get(partition) == 0 && System.nanoTime() < deadline) {
                    Thread.sleep(100);
                }
                assertThat(consumer.endOffsets(List.of(partition)).get(partition))
                        .as("the timeout abort's marker makes the partition stable again")
                        .isEqualTo(6);
            }
            assertThatThrownBy(producer::commitTransaction).isInstanceOf(KafkaException.class);
        }
        assertThat(readAll(topic, IsolationLevel.READ_COMMITTED, 0)).isEmpty();
        assertThat(readAll(topic, IsolationLevel.READ_UNCOMMITTED, 5)).containsExactlyElementsOf(values("late", 0, 5));
    }

    @Test
    void shouldDescribeAndListTransactionsForKafkaAdminTools() throws Exception {
        final String topic = topic(3);
        final String transactionalId = "described-" + UUID.randomUUID();
        try (KafkaProducer<String, String> producer = transactional(transactionalId)) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, 1, "k", "v")).get();

            final TransactionDescription open = admin.describeTransactions(List.of(transactionalId))
                    .description(transactionalId)
                    .get();
            assertThat(open.state()).isEqualTo(TransactionState.ONGOING);
            assertThat(open.topicPartitions()).containsExactly(new TopicPartition(topic, 1));
            assertThat(open.transactionStartTimeMs()).isPresent();
            final List<String> listed = admin.listTransactions().all().get().stream()
                    .filter(listing -> listing.state() == TransactionState.ONGOING)
                    .map(TransactionListing::transactionalId)
                    .toList();
            assertThat(listed).contains(transactionalId);

            producer.commitTransaction();
            assertThat(admin.describeTransactions(List.of(transactionalId))
                            .description(transactionalId)
                            .get()
                            .state())
                    .isEqualTo(TransactionState.COMPLETE_COMMIT);
        }
    }

    // ------------------------------------------------------------------ helpers

    private String topic(final int partitions) throws Exception {
        final String name = "txn-" + UUID.randomUUID();
        admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1)))
                .all()
                .get();
        return name;
    }

    private KafkaProducer<String, String> transactional(final String transactionalId) {
        return transactional(transactionalId, new Properties());
    }

    private KafkaProducer<String, String> transactional(final String transactionalId, final Properties extra) {
        final Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
        props.putAll(extra);
        return new KafkaProducer<>(props);
    }

    private KafkaConsumer<String, String> consumer(final IsolationLevel isolation, final String group) {
        final Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString());
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        if (group != null) {
            props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        }
        return new KafkaConsumer<>(props);
    }

    private static void sendRange(
            final KafkaProducer<String, String> producer,
            final String topic,
            final String prefix,
            final int from,
            final int to) {
        for (int i = from; i < to; i++) {
            producer.send(new ProducerRecord<>(topic, 0, "k" + i, prefix + "-" + i));
        }
    }

    /**
     * Every record a consumer at {@code isolation} reads from the start of {@code topic} until it has {@code expected}
     * and then a quiet second more (so an extra record would be caught), in partition 0's order.
     */
    private List<String> readAll(final String topic, final IsolationLevel isolation, final int expected)
            throws Exception {
        final List<TopicPartition> partitions =
                admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().stream()
                        .map(info -> new TopicPartition(topic, info.partition()))
                        .toList();
        try (KafkaConsumer<String, String> consumer = consumer(isolation, null)) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            final List<String> seen = new ArrayList<>();
            final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (seen.size() < expected && System.nanoTime() < deadline) {
                seen.addAll(poll(consumer, Duration.ofMillis(200)));
            }
            seen.addAll(poll(consumer, Duration.ofSeconds(1)));
            return seen;
        }
    }

    private static List<String> poll(final KafkaConsumer<String, String> consumer, final Duration timeout) {
        final List<String> values = new ArrayList<>();
        for (final ConsumerRecord<String, String> record : consumer.poll(timeout)) {
            values.add(record.value());
        }
        return values;
    }

    private static List<String> values(final String prefix, final int from, final int to) {
        final List<String> values = new ArrayList<>();
        for (int i = from; i < to; i++) {
            values.add(prefix + "-" + i);
        }
        return values;
    }

    private static List<String> upper(final List<String> values) {
        return values.stream().map(value -> value.toUpperCase()).toList();
    }

    @SafeVarargs
    private static List<String> concat(final List<String>... lists) {
        final List<String> all = new ArrayList<>();
        for (final List<String> list : lists) {
            all.addAll(list);
        }
        return all;
    }
}
