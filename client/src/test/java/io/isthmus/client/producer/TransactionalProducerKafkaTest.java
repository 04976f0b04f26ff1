package io.isthmus.client.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.client.consumer.ConsumedRecord;
import io.isthmus.client.consumer.ConsumerBatch;
import io.isthmus.client.consumer.IsthmusConsumer;
import io.isthmus.client.testing.KafkaTopics;
import io.isthmus.testing.ApacheKafkaBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TransactionAbortedException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The isthmus transactional producer and the isthmus {@code read_committed} consumer against a real Apache Kafka 4.4
 * broker (its own transaction coordinator): commit, abort, both on one producer, an open transaction holding consumers
 * back, fencing, offsets in a consume-transform-produce loop, and finishing a transaction another producer left open.
 * Every check names the exact records, in order.
 */
class TransactionalProducerKafkaTest {
    private static final String RC = "read_committed";
    private static final String RU = "read_uncommitted";

    @TempDir
    static Path dir;

    private static ApacheKafkaBroker kafka;

    @BeforeAll
    static void startKafka() throws Exception {
        kafka = ApacheKafkaBroker.start(dir);
    }

    @AfterAll
    static void stopKafka() {
        kafka.close();
    }

    private static IsthmusProducer transactional(final String transactionalId) {
        return transactional(transactionalId, 5);
    }

    private static IsthmusProducer transactional(final String transactionalId, final long lingerMs) {
        final Map<String, Object> settings = new HashMap<>();
        settings.put("bootstrap.servers", kafka.bootstrapServers());
        settings.put("transport", "tcp");
        settings.put("transactional.id", transactionalId);
        settings.put("linger.ms", lingerMs);
        settings.put("max.block.ms", 30_000);
        return new IsthmusProducer(settings);
    }

    private static CompletableFuture<RecordMetadata> send(
            final IsthmusProducer producer, final String topic, final int partition, final String value) {
        return producer.sendAsync(
                topic, partition, IsthmusProducer.NOW, (byte[]) null, value.getBytes(StandardCharsets.UTF_8), null);
    }

    private static List<String> values(final String prefix, final int from, final int to) {
        final List<String> values = new ArrayList<>();
        for (int i = from; i < to; i++) {
            values.add(prefix + i);
        }
        return values;
    }

    private static List<String> concat(final List<String> first, final List<String> second) {
        final List<String> all = new ArrayList<>(first);
        all.addAll(second);
        return all;
    }

    @Test
    void shouldShowACommittedTransactionToReadCommittedConsumers() {
        final String topic = "txn-commit";
        KafkaTopics.create(kafka.bootstrapServers(), topic, 2);
        try (IsthmusProducer producer = transactional("commit")) {
            producer.initTransactions();
            assertThat(producer.producerId()).isNotNegative();
            producer.beginTransaction();
            for (int i = 0; i < 10; i++) {
                send(producer, topic, i % 2, "c-" + i);
            }
            producer.commitTransaction();
        }
        final Map<Integer, List<String>> expected = Map.of(
                0, List.of("c-0", "c-2", "c-4", "c-6", "c-8"),
                1, List.of("c-1", "c-3", "c-5", "c-7", "c-9"));
        for (final boolean byRecord : new boolean[] {false, true}) {
            assertThat(KafkaTopics.read(kafka.bootstrapServers(), topic, 2, RC, byRecord))
                    .isEqualTo(expected);
            assertThat(KafkaTopics.read(kafka.bootstrapServers(), topic, 2, RU, byRecord))
                    .isEqualTo(expected);
        }
    }

    /**
     * The sender finds the transaction aborting and is paused right there (the abort waits until it has), while the
     * application ends the abort, begins the next transaction and sends into it; then it goes on. It must fail nothing
     * of the new transaction: its records were once failed silently, the transaction committed without them, and the
     * next one stalled on the sequence gap until the coordinator fenced the producer.
     */
    @Test
    void shouldLeaveTheNextTransactionsBatchesAloneWhenTheSenderCleansUpAnAbortLate() throws Exception {
        final String topic = "txn-abort-then-begin";
        KafkaTopics.create(kafka.bootstrapServers(), topic, 1);
        final CountDownLatch senderPaused = new CountDownLatch(1);
        final CountDownLatch resumeSender = new CountDownLatch(1);
        try (IsthmusProducer producer = transactional("abort-then-begin")) {
            producer.initTransactions();
            producer.sender.failingTransactionSeen = () -> {
                if (senderPaused.getCount() > 0) {
                    senderPaused.countDown();
                    try {
                        resumeSender.await(30, TimeUnit.SECONDS);
                    } catch (final InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            };
            producer.beginTransaction();
            for (int i = 0; i < 5; i++) {
                send(producer, topic, 0, "aborted-" + i);
            }
            producer.flush();
            // The abort waits for the sender to see it aborting; without this the abort may end before the sender's
            // next round, and the race this test is about does not happen.
            final boolean[] seen = new boolean[1];
            producer.transactions.abortFlushed = () -> {
                producer.sender.wakeup();
                try {
                    seen[0] = senderPaused.await(30, TimeUnit.SECONDS);
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            };
            producer.abortTransaction();
            assertThat(seen[0]).as("the sender saw the abort").isTrue();
            producer.beginTransaction();
            final List<CompletableFuture<RecordMetadata>> sent = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                sent.add(send(producer, topic, 0, "kept-" + i));
            }
            resumeSender.countDown();
            producer.commitTransaction();
            for (final CompletableFuture<RecordMetadata> future : sent) {
                assertThat(future.get(30, TimeUnit.SECONDS).offset()).isNotNegative();
            }
            producer.beginTransaction();
            send(producer, topic, 0, "next");
            producer.commitTransaction();
        }
        assertThat(KafkaTopics.read(kafka.bootstrapServers(), topic, 1, RC, false))
                .isEqualTo(Map.of(0, concat(values("kept-", 0, 5), List.of("next"))));
    }

    @Test
    void shouldHideAnAbortedTransactionAndFailWhatItHadNotSent() throws Exception {
        final String topic = "txn-abort";
        KafkaTopics.create(kafka.bootstrapServers(), topic, 1);
        final List<CompletableFuture<RecordMetadata>> written = new ArrayList<>();
        final List<CompletableFuture<RecordMetadata>> unsent = new ArrayList<>();
        try (IsthmusProducer producer = transactional("abort", 60_000)) {
            producer.initTransactions();
            producer.beginTransaction();
            for (int i = 0; i < 5; i++) {
                written.add(send(producer, topic, 0, "a-" + i));
            }
            producer.flush();
            for (int i = 5; i < 8; i++) {
                unsent.add(send(producer, topic, 0, "a-" + i));
            }
            producer.abortTransaction();

            for (final CompletableFuture<RecordMetadata> future : written) {
                assertThat(future).isCompleted();
                assertThat(future.get().offset()).isNotNegative();
            }
            for (final CompletableFuture<RecordMetadata> future : unsent) {
                assertThat(future).isCompletedExceptionally();
                assertThatThrownBy(future::get).hasCauseInstanceOf(TransactionAbortedException.class);
            }

            // The same producer goes on: the abort bumped its epoch, as the unsent batches left a sequence gap.
            producer.beginTransaction();
            send(producer, topic, 0, "after-abort");
            producer.commitTransaction();
        }
        assertThat(KafkaTopics.read(kafka.bootstrapServers(), topic, RC)).containsExactly("after-abort");
        assertThat(KafkaTopics.read(kafka.bootstrapServers(), topic, RU))
                .as("the aborted records that were written, never the unsent ones")
                .containsExactly("a-0", "a-1", "a-2", "a-3", "a-4", "after-abort");
    }

    @Test
    void shouldKeepCommitsAndDropAbortsInterleavedOnOneProducer() {
        final String topic = "txn-interleaved";
        KafkaTopics.create(kafka.bootstrapServers(), topic, 1);
        try (IsthmusProducer producer = transactional("interleaved")) {
            producer.initTransactions();
            producer.beginTransaction();
            values("first-", 0, 3).forEach(v -> send(producer, topic, 0, v));
            producer.commitTransaction();
            producer.beginTransaction();
            values("second-", 0, 3).forEach(v -> send(producer, topic, 0, v));
            producer.flush();
            producer.abortTransaction();
            producer.beginTransaction();
            values("third-", 0, 3).forEach(v -> send(producer, topic, 0, v));
            producer.commitTransaction();
        }
        assertThat(KafkaTopics.read(kafka.bootstrapServers(), topic, RC))
                .isEqualTo(concat(values("first-", 0, 3), values("third-", 0, 3)));
        assertThat(KafkaTopics.read(kafka.bootstrapServers(), topic, RU))
                .isEqualTo(concat(concat(values("first-", 0, 3), values("second-", 0, 3)), values("third-", 0, 3)));
    }

    @Test
    void shouldHoldReadCommittedConsumersBackWhileATransactionIsOpen() throws Exception {
        final String topic = "txn-open";
        KafkaTopics.create(kafka.bootstrapServers(), topic, 1);
        final TopicPartition tp = new TopicPartition(topic, 0);
        try (IsthmusProducer producer = transactional("open");
                IsthmusProducer plain =
                        new IsthmusProducer(Map.of("bootstrap.servers", kafka.bootstrapServers(), "transport", "tcp"));
                IsthmusConsumer consumer =
                        new IsthmusConsumer(KafkaTopics.consumerSettings(kafka.bootstrapServers(), RC))) {
            producer.initTransactions();
            producer.beginTransaction();
            values("open-", 0, 3).forEach(v -> send(producer, topic, 0, v));
            producer.flush();
            plain.sendAsync(
                            topic,
                            0,
                            IsthmusProducer.NOW,
                            (byte[]) null,
                            "plain".getBytes(StandardCharsets.UTF_8),
                            null)
                    .get(30, TimeUnit.SECONDS);

            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            assertThat(consumer.endOffsets(List.of(tp)))
                    .as("the last stable offset: the open transaction's first offset")
                    .containsEntry(tp, 0L);
            final List<String> seen = new ArrayList<>();
            final long until = System.nanoTime() + Duration.ofMillis(1500).toNanos();
            while (System.nanoTime() < until) {
                try (ConsumerBatch batch = consumer.poll(Duration.ofMillis(100))) {
                    for (final ConsumedRecord record : batch) {
                        seen.add(record.valueAsString());
                    }
                }
            }
            assertThat(seen)
                    .as("nothing past the open transaction, not even the plain record after it")
                    .isEmpty();
            assertThat(consumer.position(tp)).isZero();

            producer.commitTransaction();
            final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (seen.size() < 4 && System.nanoTime() < deadline) {
                try (ConsumerBatch batch = consumer.poll(Duration.ofMillis(100))) {
                    for (final ConsumedRecord record : batch) {
                        seen.add(record.valueAsString());
                    }
                }
            }
            assertThat(seen).containsExactly("open-0", "open-1", "open-2", "plain");
        }
    }

    @Test
    void shouldFenceAProducerWhenANewOneWithTheSameTransactionalIdStarts() throws Exception {
        final String topic = "txn-fenced";
        KafkaTopics.create(kafka.bootstrapServers(), topic, 2);
        try (IsthmusProducer zombie = transactional("fenced");
                IsthmusProducer successor = transactional("fenced")) {
            zombie.initTransactions();
            zombie.beginTransaction();
            values("zombie-", 0, 3).forEach(v -> send(zombie, topic, 0, v));
            zombie.flush();

            successor.initTransactions();
            assertThat(successor.producerEpoch()).isGreaterThan(zombie.producerEpoch());

            // The zombie's next partition needs the coordinator, which refuses its epoch: the send fails fenced.
            final CompletableFuture<RecordMetadata> late = send(zombie, topic, 1, "zombie-late");
            assertThatThrownBy(() -> late.get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(ProducerFencedException.class);
            assertThatThrownBy(zombie::commitTransaction)
                    .isInstanceOf(ProducerFencedException.class)
                    .hasMessageContaining("transactionalId 'fenced'");
            assertThatThrownBy(zombie::beginTransaction).isInstanceOf(ProducerFencedException.class);
            assertThatThrownBy(zombie::abortTransaction).isInstanceOf(ProducerFencedException.class);
            assertThatThrownBy(() -> zombie.send(topic, (byte[]) null, "x".getBytes(StandardCharsets.UTF_8)))
                    .isInstanceOf(KafkaException.class)
                    .hasCauseInstanceOf(ProducerFencedException.class);

            successor.beginTransaction();
            send(successor, topic, 0, "successor-0");
            successor.commitTransaction();
        }
        final Map<Integer, List<String>> committed = KafkaTopics.read(kafka.bootstrapServers(), topic, 2, RC, false);
        assertThat(committed).isEqualTo(Map.of(0, List.of("successor-0"), 1, List.of()));
        assertThat(KafkaTopics.read(kafka.bootstrapServers(), topic, 2, RU, false))
                .as("the zombie's records were written and aborted by the successor's InitProducerId")
                .isEqualTo(Map.of(0, List.of("zombie-0", "zombie-1", "zombie-2", "successor-0"), 1, List.of()));
    }

    /**
     * Exactly-once processing: input records are transformed into output records and the group's offsets go into the
     * same transaction. A transaction aborted midway leaves neither its output nor its offsets; the loop resumes from
     * the committed offset and the output holds every input once.
     */
    @Test
    void shouldCommitConsumedOffsetsOnlyWithTheTransaction() throws Exception {
        final String input = "ctp-in";
        final String output = "ctp-out";
        final String group = "ctp";
        KafkaTopics.create(kafka.bootstrapServers(), input, 1);
        KafkaTopics.create(kafka.bootstrapServers(), output, 1);
        final TopicPartition in = new TopicPartition(input, 0);
        try (IsthmusProducer plain =
                new IsthmusProducer(Map.of("bootstrap.servers", kafka.bootstrapServers(), "transport", "tcp"))) {
            values("in-", 0, 20).forEach(v -> send(plain, input, 0, v));
            plain.flush();
        }
        final Map<String, Object> consumerSettings = KafkaTopics.consumerSettings(kafka.bootstrapServers(), RC);
        consumerSettings.put("group.id", group);
        consumerSettings.put("enable.auto.commit", false);
        consumerSettings.put("auto.offset.reset", "earliest");
        try (IsthmusConsumer consumer = new IsthmusConsumer(consumerSettings);
                IsthmusProducer producer = transactional("ctp")) {
            producer.initTransactions();
            consumer.subscribe(List.of(input));
            List<ConsumedInput> records = pollUntil(consumer, 20);
            assertThat(records).extracting(ConsumedInput::value).isEqualTo(values("in-", 0, 20));

            producer.beginTransaction();
            records.subList(0, 10)
                    .forEach(r -> send(producer, output, 0, "out-" + r.value().substring(3)));
            producer.sendOffsetsToTransaction(Map.of(in, 10L), group);
            producer.commitTransaction();
            assertThat(KafkaTopics.stableCommitted(kafka.bootstrapServers(), group, in))
                    .isEqualTo(10);

            producer.beginTransaction();
            records.subList(10, 15)
                    .forEach(r -> send(producer, output, 0, "out-" + r.value().substring(3)));
            producer.flush();
            producer.sendOffsetsToTransaction(Map.of(in, new OffsetAndMetadata(15L)), consumer.groupMetadata());
            producer.abortTransaction();
            assertThat(KafkaTopics.stableCommitted(kafka.bootstrapServers(), group, in))
                    .as("the aborted transaction's offsets never count")
                    .isEqualTo(10);

            // A restarted loop goes on from the committed offset.
            consumer.seek(in, 10);
            records = pollUntil(consumer, 10);
            assertThat(records)
                    .extracting(ConsumedInput::offset)
                    .containsExactly(10L, 11L, 12L, 13L, 14L, 15L, 16L, 17L, 18L, 19L);
            producer.beginTransaction();
            records.forEach(r -> send(producer, output, 0, "out-" + r.value().substring(3)));
            producer.sendOffsetsToTransaction(Map.of(in, new OffsetAndMetadata(20L)), consumer.groupMetadata());
            producer.flush();
            assertThat(KafkaTopics.committed(kafka.bootstrapServers(), group, in))
                    .as("offsets of an open transaction are not committed yet")
                    .isEqualTo(10);
            assertThat(KafkaTopics.readWithTransactionOpen(kafka.bootstrapServers(), output, RC))
                    .isEqualTo(values("out-", 0, 10));
            producer.commitTransaction();
        }
        assertThat(KafkaTopics.stableCommitted(kafka.bootstrapServers(), group, in))
                .isEqualTo(20);
        assertThat(KafkaTopics.read(kafka.bootstrapServers(), output, RC))
                .as("every input exactly once")
                .isEqualTo(values("out-", 0, 20));
        assertThat(KafkaTopics.read(kafka.bootstrapServers(), output, RU))
                .as("the aborted attempt's output is in the log, marked aborted")
                .isEqualTo(concat(values("out-", 0, 15), values("out-", 10, 20)));
    }

    /**
     * A consumer that joins a group while a transaction holds offsets for it pending must wait for the transaction, not
     * start from the offset committed before it nor from {@code auto.offset.reset}: either would process the
     * transaction's input a second time once it commits.
     */
    @Test
    void shouldKeepAConsumerWaitingWhileItsGroupsOffsetsArePendingInATransaction() {
        final String input = "pending-in";
        final String group = "pending";
        KafkaTopics.create(kafka.bootstrapServers(), input, 1);
        final TopicPartition in = new TopicPartition(input, 0);
        try (IsthmusProducer plain =
                new IsthmusProducer(Map.of("bootstrap.servers", kafka.bootstrapServers(), "transport", "tcp"))) {
            values("in-", 0, 10).forEach(v -> send(plain, input, 0, v));
            plain.flush();
        }
        final Map<String, Object> consumerSettings = KafkaTopics.consumerSettings(kafka.bootstrapServers(), RC);
        consumerSettings.put("group.id", group);
        consumerSettings.put("enable.auto.commit", false);
        consumerSettings.put("auto.offset.reset", "earliest");
        consumerSettings.put("request.timeout.ms", 2000);
        try (IsthmusProducer producer = transactional("pending");
                IsthmusConsumer consumer = new IsthmusConsumer(consumerSettings)) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.sendOffsetsToTransaction(Map.of(in, 6L), group);

            consumer.subscribe(List.of(input));
            final List<ConsumedInput> early = new ArrayList<>();
            final long until = System.nanoTime() + Duration.ofMillis(1500).toNanos();
            while (System.nanoTime() < until) {
                try (ConsumerBatch batch = consumer.poll(Duration.ofMillis(100))) {
                    for (final ConsumedRecord record : batch) {
                        early.add(new ConsumedInput(record.offset(), record.valueAsString()));
                    }
                }
            }
            assertThat(early)
                    .as("no position while the group's offset is pending")
                    .isEmpty();
            assertThatThrownBy(() -> consumer.committed(Set.of(in)))
                    .isInstanceOf(TimeoutException.class)
                    .hasMessageContaining("pending in an open transaction");

            producer.commitTransaction();
            assertThat(pollUntil(consumer, 4))
                    .as("from the offset the transaction committed")
                    .extracting(ConsumedInput::offset)
                    .containsExactly(6L, 7L, 8L, 9L);
            assertThat(consumer.committed(Set.of(in))).containsEntry(in, 6L);
        }
    }

    private record ConsumedInput(long offset, String value) {}

    private static List<ConsumedInput> pollUntil(final IsthmusConsumer consumer, final int count) {
        final List<ConsumedInput> records = new ArrayList<>();
        final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (records.size() < count) {
            assertThat(System.nanoTime()).as("%d records within 30 s", count).isLessThan(deadline);
            try (ConsumerBatch batch = consumer.poll(Duration.ofMillis(100))) {
                for (final ConsumedRecord record : batch) {
                    records.add(new ConsumedInput(record.offset(), record.valueAsString()));
                }
            }
        }
        return records;
    }

    /**
     * What a Flink exactly-once sink does across a restart: a producer flushes a transaction, the handle goes into the
     * checkpoint, the producer dies without committing; a new producer with the same transactional id resumes the
     * transaction by its handle (no initTransactions, which would abort it) and commits it.
     */
    @Test
    void shouldCommitATransactionResumedFromItsHandleByANewProducer() {
        final String topic = "txn-resume";
        KafkaTopics.create(kafka.bootstrapServers(), topic, 1);
        final TransactionHandle handle;
        try (IsthmusProducer first = transactional("resume")) {
            first.initTransactions();
            first.beginTransaction();
            values("prepared-", 0, 5).forEach(v -> send(first, topic, 0, v));
            first.flush();
            handle = first.transactionHandle();
            assertThat(handle).isEqualTo(new TransactionHandle("resume", first.producerId(), first.producerEpoch()));
        }
        assertThat(KafkaTopics.readWithTransactionOpen(kafka.bootstrapServers(), topic, RC))
                .as("prepared, not committed")
                .isEmpty();

        try (IsthmusProducer committer = transactional("resume")) {
            assertThatThrownBy(() -> committer.resumeTransaction(new TransactionHandle("other", 1, (short) 0)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("another transactional.id");
            committer.resumeTransaction(handle);
            assertThat(committer.transactionHandle()).isEqualTo(handle);
            assertThatThrownBy(() -> send(committer, topic, 0, "not-allowed"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("resumed transaction");
            committer.commitTransaction();

            // Finished: the producer now needs a producer id of its own for transactions of its own.
            assertThatThrownBy(committer::beginTransaction).isInstanceOf(IllegalStateException.class);
            committer.initTransactions();
            assertThatThrownBy(() -> committer.resumeTransaction(handle))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("did not call initTransactions");
            committer.beginTransaction();
            send(committer, topic, 0, "own-0");
            committer.commitTransaction();
        }
        assertThat(KafkaTopics.read(kafka.bootstrapServers(), topic, RC))
                .isEqualTo(concat(values("prepared-", 0, 5), List.of("own-0")));
    }

    @Test
    void shouldAbortATransactionResumedFromItsHandle() {
        final String topic = "txn-resume-abort";
        KafkaTopics.create(kafka.bootstrapServers(), topic, 1);
        final TransactionHandle handle;
        try (IsthmusProducer first = transactional("resume-abort")) {
            first.initTransactions();
            first.beginTransaction();
            values("prepared-", 0, 3).forEach(v -> send(first, topic, 0, v));
            first.flush();
            handle = first.transactionHandle();
        }
        try (IsthmusProducer committer = transactional("resume-abort")) {
            committer.resumeTransaction(handle);
            committer.abortTransaction();
        }
        assertThat(KafkaTopics.read(kafka.bootstrapServers(), topic, RC)).isEmpty();
        assertThat(KafkaTopics.read(kafka.bootstrapServers(), topic, RU)).isEqualTo(values("prepared-", 0, 3));
    }

    // ------------------------------------------------------------------ bad use, as kafka-clients answers it

    private static KafkaProducer<byte[], byte[]> kafkaTransactional(final String transactionalId) {
        return new KafkaProducer<>(
                Map.of(
                        "bootstrap.servers",
                        kafka.bootstrapServers(),
                        "transactional.id",
                        transactionalId,
                        "max.block.ms",
                        30_000),
                new ByteArraySerializer(),
                new ByteArraySerializer());
    }

    @Test
    void shouldRefuseCommitAndAbortWithoutATransactionAsKafkaClientsDoes() {
        try (IsthmusProducer producer = transactional("no-begin");
                KafkaProducer<byte[], byte[]> kafkaProducer = kafkaTransactional("kafka-no-begin")) {
            producer.initTransactions();
            kafkaProducer.initTransactions();

            assertThatThrownBy(kafkaProducer::commitTransaction).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(producer::commitTransaction)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("commitTransaction")
                    .hasMessageContaining("beginTransaction() first");
            assertThatThrownBy(kafkaProducer::abortTransaction).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(producer::abortTransaction)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("abortTransaction");

            // Still usable after the refused calls.
            producer.beginTransaction();
            assertThatThrownBy(producer::initTransactions)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("initTransactions");
            producer.abortTransaction();
        }
    }

    @Test
    void shouldRefuseSendsOutsideATransaction() {
        final String topic = "txn-no-begin";
        KafkaTopics.create(kafka.bootstrapServers(), topic, 1);
        try (IsthmusProducer producer = transactional("send-no-begin")) {
            assertThatThrownBy(() -> send(producer, topic, 0, "before-init"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("initTransactions");
            producer.initTransactions();
            assertThatThrownBy(() -> send(producer, topic, 0, "before-begin"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("state READY")
                    .hasMessageContaining("beginTransaction() first");
            assertThatThrownBy(() -> producer.sendOffsetsToTransaction(Map.of(new TopicPartition(topic, 0), 1L), "g"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("not in progress");
            assertThatThrownBy(producer::transactionHandle).isInstanceOf(IllegalStateException.class);
        }
        try (IsthmusProducer plain =
                new IsthmusProducer(Map.of("bootstrap.servers", kafka.bootstrapServers(), "transport", "tcp"))) {
            assertThatThrownBy(plain::initTransactions)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("non-transactional producer");
        }
        assertThat(KafkaTopics.read(kafka.bootstrapServers(), topic, RU)).isEmpty();
    }
}
