package io.isthmus.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.broker.Broker;
import io.isthmus.client.admin.IsthmusAdmin;
import io.isthmus.client.consumer.ConsumedRecord;
import io.isthmus.client.consumer.ConsumerBatch;
import io.isthmus.client.consumer.IsthmusConsumer;
import io.isthmus.client.producer.IsthmusProducer;
import io.isthmus.client.producer.TransactionHandle;
import io.isthmus.e2e.EmbeddedBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The isthmus transactional producer and {@code read_committed} consumer against the isthmus broker's own transaction
 * coordinator (the client module proves the same against Apache Kafka): commits and aborts in turn, an open transaction
 * holding read_committed back, fencing, the broker aborting a transaction past its timeout, offsets in a
 * consume-transform-produce loop, and a transaction finished by handle by a new producer.
 */
class IsthmusTransactionsEndToEndTest {
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    @TempDir
    static Path logDir;

    private static Broker broker;
    private static IsthmusAdmin admin;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = EmbeddedBroker.start(logDir, "transaction.abort.timed.out.transaction.cleanup.interval.ms=200");
        admin = new IsthmusAdmin(broker.bootstrapServers());
    }

    @AfterAll
    static void stopBroker() throws Exception {
        admin.close();
        broker.close();
    }

    private static IsthmusProducer transactional(final String transactionalId) {
        return new IsthmusProducer(Map.of(
                "bootstrap.servers",
                broker.bootstrapServers(),
                "transport",
                "tcp",
                "transactional.id",
                transactionalId,
                "max.block.ms",
                30_000));
    }

    private static void send(final IsthmusProducer producer, final String topic, final String value) {
        producer.send(topic, 0, IsthmusProducer.NOW, null, value.getBytes(StandardCharsets.UTF_8), null, null);
    }

    private static List<String> values(final String prefix, final int from, final int to) {
        final List<String> values = new ArrayList<>();
        for (int i = from; i < to; i++) {
            values.add(prefix + i);
        }
        return values;
    }

    private static Map<String, Object> consumerSettings(final String isolationLevel) {
        final Map<String, Object> settings = new HashMap<>();
        settings.put("bootstrap.servers", broker.bootstrapServers());
        settings.put("transport", "tcp");
        settings.put("isolation.level", isolationLevel);
        settings.put("fetch.max.wait.ms", 100);
        return settings;
    }

    /**
     * Every value of partition 0 up to its end offset as this consumer sees it (the last stable offset with
     * read_committed), once no transaction is open any more; the position must reach that end, markers included.
     */
    private static List<String> read(final String topic, final String isolationLevel) {
        final TopicPartition tp = new TopicPartition(topic, 0);
        final List<String> values = new ArrayList<>();
        try (IsthmusConsumer committed = new IsthmusConsumer(consumerSettings("read_committed"));
                IsthmusConsumer consumer = new IsthmusConsumer(consumerSettings(isolationLevel))) {
            // EndTxn returns once decided; the markers follow a moment later. Wait for the last stable offset to reach
            // the log end, so that every transaction has its marker.
            final long settle = System.nanoTime() + DEADLINE.toNanos();
            while (!committed.endOffsets(List.of(tp)).equals(endOffsets(tp))) {
                assertThat(System.nanoTime())
                        .as("transactions of %s ended", topic)
                        .isLessThan(settle);
            }
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            final long end = consumer.endOffsets(List.of(tp)).get(tp);
            final long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (consumer.position(tp) < end) {
                assertThat(System.nanoTime()).as("%s read to %d", topic, end).isLessThan(deadline);
                try (ConsumerBatch batch = consumer.poll(Duration.ofMillis(100))) {
                    for (final ConsumedRecord record : batch) {
                        values.add(record.valueAsString());
                    }
                }
            }
            assertThat(consumer.position(tp)).isEqualTo(end);
        }
        return values;
    }

    private static Map<TopicPartition, Long> endOffsets(final TopicPartition tp) {
        try (IsthmusConsumer uncommitted = new IsthmusConsumer(consumerSettings("read_uncommitted"))) {
            return uncommitted.endOffsets(List.of(tp));
        }
    }

    @Test
    void shouldKeepCommitsAndDropAbortsInTurn() {
        final String topic = "txn-e2e-turns";
        admin.createTopic(topic, 1, (short) 1);
        try (IsthmusProducer producer = transactional("turns")) {
            producer.initTransactions();
            producer.beginTransaction();
            values("first-", 0, 3).forEach(v -> send(producer, topic, v));
            producer.commitTransaction();
            producer.beginTransaction();
            values("second-", 0, 3).forEach(v -> send(producer, topic, v));
            producer.flush();
            producer.abortTransaction();
            producer.beginTransaction();
            values("third-", 0, 3).forEach(v -> send(producer, topic, v));
            producer.commitTransaction();
        }
        final List<String> committed = new ArrayList<>(values("first-", 0, 3));
        committed.addAll(values("third-", 0, 3));
        assertThat(read(topic, "read_committed")).isEqualTo(committed);
        final List<String> all = new ArrayList<>(values("first-", 0, 3));
        all.addAll(values("second-", 0, 3));
        all.addAll(values("third-", 0, 3));
        assertThat(read(topic, "read_uncommitted")).isEqualTo(all);
    }

    @Test
    void shouldHoldReadCommittedBackWhileATransactionIsOpen() {
        final String topic = "txn-e2e-open";
        admin.createTopic(topic, 1, (short) 1);
        final TopicPartition tp = new TopicPartition(topic, 0);
        try (IsthmusProducer open = transactional("open");
                IsthmusProducer later = transactional("later");
                IsthmusConsumer consumer = new IsthmusConsumer(consumerSettings("read_committed"))) {
            open.initTransactions();
            later.initTransactions();
            open.beginTransaction();
            send(open, topic, "open-0");
            open.flush();
            later.beginTransaction();
            send(later, topic, "later-0");
            later.commitTransaction();

            assertThat(consumer.endOffsets(List.of(tp))).containsEntry(tp, 0L);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            final List<String> seen = new ArrayList<>();
            final long quiet = System.nanoTime() + Duration.ofSeconds(1).toNanos();
            while (System.nanoTime() < quiet) {
                try (ConsumerBatch batch = consumer.poll(Duration.ofMillis(100))) {
                    for (final ConsumedRecord record : batch) {
                        seen.add(record.valueAsString());
                    }
                }
            }
            assertThat(seen)
                    .as("nothing past the open transaction's first record")
                    .isEmpty();

            open.commitTransaction();
            final long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (seen.size() < 2 && System.nanoTime() < deadline) {
                try (ConsumerBatch batch = consumer.poll(Duration.ofMillis(100))) {
                    for (final ConsumedRecord record : batch) {
                        seen.add(record.valueAsString());
                    }
                }
            }
            assertThat(seen).containsExactly("open-0", "later-0");
        }
    }

    @Test
    void shouldAbortATransactionPastItsTimeoutAndFenceItsProducer() {
        final String topic = "txn-e2e-timeout";
        admin.createTopic(topic, 1, (short) 1);
        final TopicPartition tp = new TopicPartition(topic, 0);
        try (IsthmusProducer producer = new IsthmusProducer(Map.of(
                "bootstrap.servers",
                broker.bootstrapServers(),
                "transport",
                "tcp",
                "transactional.id",
                "timeout",
                "transaction.timeout.ms",
                1_000))) {
            producer.initTransactions();
            producer.beginTransaction();
            send(producer, topic, "late-0");
            producer.flush();
            final long deadline = System.nanoTime() + DEADLINE.toNanos();
            try (IsthmusConsumer consumer = new IsthmusConsumer(consumerSettings("read_committed"))) {
                while (consumer.endOffsets(List.of(tp)).get(tp) == 0) {
                    assertThat(System.nanoTime())
                            .as("the broker aborted the transaction")
                            .isLessThan(deadline);
                }
            }
            assertThatThrownBy(producer::commitTransaction).isInstanceOf(ProducerFencedException.class);
        }
        assertThat(read(topic, "read_committed")).isEmpty();
        assertThat(read(topic, "read_uncommitted")).containsExactly("late-0");
    }

    @Test
    void shouldFenceTheOlderProducer() {
        final String topic = "txn-e2e-fenced";
        admin.createTopic(topic, 1, (short) 1);
        try (IsthmusProducer zombie = transactional("fenced");
                IsthmusProducer successor = transactional("fenced")) {
            zombie.initTransactions();
            zombie.beginTransaction();
            send(zombie, topic, "zombie-0");
            zombie.flush();
            successor.initTransactions();
            assertThatThrownBy(zombie::commitTransaction).isInstanceOf(ProducerFencedException.class);
            successor.beginTransaction();
            send(successor, topic, "successor-0");
            successor.commitTransaction();
        }
        assertThat(read(topic, "read_committed")).containsExactly("successor-0");
        assertThat(read(topic, "read_uncommitted")).containsExactly("zombie-0", "successor-0");
    }

    @Test
    void shouldCommitGroupOffsetsOnlyWithTheirTransaction() {
        final String input = "txn-e2e-in";
        final String output = "txn-e2e-out";
        final String group = "txn-e2e";
        admin.createTopic(input, 1, (short) 1);
        admin.createTopic(output, 1, (short) 1);
        final TopicPartition in = new TopicPartition(input, 0);
        try (IsthmusProducer plain =
                new IsthmusProducer(Map.of("bootstrap.servers", broker.bootstrapServers(), "transport", "tcp"))) {
            values("in-", 0, 10).forEach(v -> send(plain, input, v));
            plain.flush();
        }
        final Map<String, Object> settings = consumerSettings("read_committed");
        settings.put("group.id", group);
        settings.put("enable.auto.commit", false);
        settings.put("auto.offset.reset", "earliest");
        try (IsthmusConsumer consumer = new IsthmusConsumer(settings);
                IsthmusProducer producer = transactional("ctp-e2e")) {
            producer.initTransactions();
            consumer.subscribe(List.of(input));
            final List<String> records = new ArrayList<>();
            final long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (records.size() < 10) {
                assertThat(System.nanoTime()).isLessThan(deadline);
                try (ConsumerBatch batch = consumer.poll(Duration.ofMillis(100))) {
                    for (final ConsumedRecord record : batch) {
                        records.add(record.valueAsString());
                    }
                }
            }
            producer.beginTransaction();
            records.subList(0, 5).forEach(v -> send(producer, output, "out-" + v.substring(3)));
            producer.sendOffsetsToTransaction(Map.of(in, new OffsetAndMetadata(5)), consumer.groupMetadata());
            producer.commitTransaction();

            producer.beginTransaction();
            records.subList(5, 10).forEach(v -> send(producer, output, "out-" + v.substring(3)));
            producer.sendOffsetsToTransaction(Map.of(in, new OffsetAndMetadata(10)), consumer.groupMetadata());
            producer.flush();
            producer.abortTransaction();

            assertThat(consumer.committed(Set.of(in))).containsEntry(in, 5L);
        }
        assertThat(read(output, "read_committed")).isEqualTo(values("out-", 0, 5));
    }

    @Test
    void shouldCommitATransactionResumedFromItsHandle() {
        final String topic = "txn-e2e-resume";
        admin.createTopic(topic, 1, (short) 1);
        final TransactionHandle handle;
        try (IsthmusProducer first = transactional("resume-e2e")) {
            first.initTransactions();
            first.beginTransaction();
            values("prepared-", 0, 3).forEach(v -> send(first, topic, v));
            first.flush();
            handle = first.transactionHandle();
        }
        try (IsthmusProducer committer = transactional("resume-e2e")) {
            committer.resumeTransaction(handle);
            committer.commitTransaction();
        }
        assertThat(read(topic, "read_committed")).isEqualTo(values("prepared-", 0, 3));
    }
}
