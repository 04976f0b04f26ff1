package io.isthmus.e2e;

import static io.isthmus.e2e.LoopbackPorts.freePort;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of the broker (a separate process) in the middle of a stream of transactions: a transaction whose commit
 * returned is read exactly once by read_committed, an aborted one and one left open by the crash never, one killed
 * while its commit was in flight completely or not at all; and no transaction is left hanging (the read_committed end
 * offset reaches the log end).
 */
class TransactionCrashTest {
    private static final String TOPIC = "txn-crash";
    private static final int PARTITIONS = 2;
    private static final int RECORDS_PER_ROUND = 400;
    private static final String TRANSACTIONAL_ID = "crashing-producer";

    /** How a round ends. */
    private enum Ending {
        COMMIT,
        ABORT,
        /** The broker dies with the transaction open: it must be aborted. */
        CRASH_WHILE_OPEN,
        /** The broker dies right after the commit returned: it must stay committed. */
        CRASH_AFTER_COMMIT,
        /** The broker dies while the commit is in flight: all of the round or nothing. */
        CRASH_DURING_COMMIT
    }

    private static final List<Ending> ROUNDS = List.of(
            Ending.COMMIT,
            Ending.ABORT,
            Ending.CRASH_WHILE_OPEN,
            Ending.COMMIT,
            Ending.CRASH_AFTER_COMMIT,
            Ending.CRASH_DURING_COMMIT,
            Ending.COMMIT,
            Ending.ABORT);

    @Test
    void shouldKeepEveryCommittedTransactionExactlyOnceAndNothingOfAnyOtherAcrossKill9(@TempDir final Path dir)
            throws Exception {
        final int port = freePort();
        final String bootstrap = "127.0.0.1:" + port;
        BrokerProcess broker = BrokerProcess.start(dir, port);
        final Map<Integer, Boolean> mustBePresent = new HashMap<>();
        try {
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
                admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1)))
                        .all()
                        .get();
            }
            KafkaProducer<String, String> producer = producer(bootstrap);
            producer.initTransactions();
            for (int round = 0; round < ROUNDS.size(); round++) {
                producer.beginTransaction();
                for (int i = 0; i < RECORDS_PER_ROUND; i++) {
                    producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, "k" + i, value(round, i)));
                }
                producer.flush();
                final Ending ending = ROUNDS.get(round);
                switch (ending) {
                    case COMMIT -> {
                        producer.commitTransaction();
                        mustBePresent.put(round, true);
                    }
                    case ABORT -> {
                        producer.abortTransaction();
                        mustBePresent.put(round, false);
                    }
                    case CRASH_WHILE_OPEN -> {
                        broker.kill9();
                        mustBePresent.put(round, false);
                    }
                    case CRASH_AFTER_COMMIT -> {
                        producer.commitTransaction();
                        broker.kill9();
                        mustBePresent.put(round, true);
                    }
                    case CRASH_DURING_COMMIT -> {
                        final KafkaProducer<String, String> committing = producer;
                        final CompletableFuture<Void> commit =
                                CompletableFuture.runAsync(committing::commitTransaction);
                        broker.kill9();
                        // In doubt: the check below accepts all of the round or none of it.
                        commit.handle((done, failure) -> null);
                    }
                }
                if (ending.name().startsWith("CRASH")) {
                    producer.close(Duration.ZERO);
                    broker = BrokerProcess.start(dir, port);
                    // The successor fences the dead stream's producer and aborts what it left open.
                    producer = producer(bootstrap);
                    producer.initTransactions();
                }
            }
            producer.close();

            final Map<Integer, List<String>> byRound = readCommitted(bootstrap);
            for (int round = 0; round < ROUNDS.size(); round++) {
                final List<String> seen = byRound.getOrDefault(round, List.of());
                final List<String> whole = new ArrayList<>();
                for (int i = 0; i < RECORDS_PER_ROUND; i++) {
                    whole.add(value(round, i));
                }
                final Boolean present = mustBePresent.get(round);
                if (present == null) {
                    assertThat(seen.isEmpty() || seen.size() == RECORDS_PER_ROUND)
                            .as("round %d (%s) is all or nothing, saw %d", round, ROUNDS.get(round), seen.size())
                            .isTrue();
                    if (!seen.isEmpty()) {
                        assertThat(seen).containsExactlyInAnyOrderElementsOf(whole);
                    }
                } else if (present) {
                    assertThat(seen)
                            .as("round %d (%s)", round, ROUNDS.get(round))
                            .containsExactlyInAnyOrderElementsOf(whole);
                } else {
                    assertThat(seen)
                            .as("round %d (%s)", round, ROUNDS.get(round))
                            .isEmpty();
                }
            }
        } finally {
            broker.close();
        }
    }

    private static String value(final int round, final int index) {
        return round + ":" + index;
    }

    /** Everything read_committed sees, by round, after checking that no transaction holds the stable offset back. */
    private static Map<Integer, List<String>> readCommitted(final String bootstrap) throws Exception {
        final List<TopicPartition> partitions = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            partitions.add(new TopicPartition(TOPIC, p));
        }
        final Map<Integer, List<String>> byRound = new HashMap<>();
        try (KafkaConsumer<String, String> committed = consumer(bootstrap, IsolationLevel.READ_COMMITTED);
                KafkaConsumer<String, String> uncommitted = consumer(bootstrap, IsolationLevel.READ_UNCOMMITTED)) {
            assertThat(committed.endOffsets(partitions))
                    .as("no transaction is left open after the crashes")
                    .isEqualTo(uncommitted.endOffsets(partitions));
            final Map<TopicPartition, Long> ends = committed.endOffsets(partitions);
            committed.assign(partitions);
            committed.seekToBeginning(partitions);
            final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline && !reachedEnds(committed, ends)) {
                for (final ConsumerRecord<String, String> record : committed.poll(Duration.ofMillis(200))) {
                    final int round = Integer.parseInt(
                            record.value().substring(0, record.value().indexOf(':')));
                    byRound.computeIfAbsent(round, r -> new ArrayList<>()).add(record.value());
                }
            }
            assertThat(reachedEnds(committed, ends)).as("read to the end").isTrue();
        }
        return byRound;
    }

    private static boolean reachedEnds(
            final KafkaConsumer<String, String> consumer, final Map<TopicPartition, Long> ends) {
        for (final Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
            if (consumer.position(end.getKey()) < end.getValue()) {
                return false;
            }
        }
        return true;
    }

    private static KafkaProducer<String, String> producer(final String bootstrap) {
        final Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, TRANSACTIONAL_ID);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 2);
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000);
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 60_000);
        props.put(ProducerConfig.RECONNECT_BACKOFF_MS_CONFIG, 50);
        props.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    private static KafkaConsumer<String, String> consumer(final String bootstrap, final IsolationLevel isolation) {
        final Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString());
        return new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    }
}
