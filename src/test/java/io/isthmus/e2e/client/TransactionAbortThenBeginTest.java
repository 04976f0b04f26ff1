package io.isthmus.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.broker.Broker;
import io.isthmus.client.admin.IsthmusAdmin;
import io.isthmus.client.consumer.IsthmusConsumer;
import io.isthmus.client.producer.IsthmusProducer;
import io.isthmus.e2e.EmbeddedBroker;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The isthmus transactional producer beginning a transaction right after an abort returns, many times: the sender's
 * clean-up of the aborted transaction's unsent batches must never take the new transaction's batches with it. Before
 * the batches knew their transaction, the sender could read "aborting", lose the processor, and fail the next
 * transaction's first batch: its records vanished from a transaction that then committed without error, and the next
 * transaction stalled on the sequence gap until the coordinator fenced the producer. Every committed record must be
 * read back, in order.
 */
class TransactionAbortThenBeginTest {
    private static final String TOPIC = "abort-then-begin";
    private static final int TRANSACTIONS = 400;
    private static final int RECORDS = 10;

    @TempDir
    Path dir;

    @Test
    void shouldKeepEveryRecordOfTheTransactionBegunRightAfterAnAbort() throws Exception {
        try (Broker broker = EmbeddedBroker.start(dir)) {
            final String bootstrap = broker.bootstrapServers();
            try (IsthmusAdmin admin = new IsthmusAdmin(bootstrap)) {
                admin.createTopic(TOPIC, 1, (short) 1);
            }
            final List<Long> committed = new ArrayList<>();
            try (IsthmusProducer producer = new IsthmusProducer(Map.of(
                            "bootstrap.servers", bootstrap,
                            "transactional.id", "abort-then-begin",
                            "transaction.timeout.ms", "20000",
                            "delivery.timeout.ms", "20000"));
                    Arena arena = Arena.ofConfined()) {
                producer.initTransactions();
                final MemorySegment value = arena.allocate(Long.BYTES);
                long sequence = 0;
                for (int t = 0; t < TRANSACTIONS; t++) {
                    final boolean commit = t % 2 == 1;
                    producer.beginTransaction();
                    for (int r = 0; r < RECORDS; r++) {
                        value.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, sequence);
                        producer.send(TOPIC, 0, IsthmusProducer.NOW, null, value, null, null);
                        if (commit) {
                            committed.add(sequence);
                        }
                        sequence++;
                    }
                    if (commit) {
                        producer.commitTransaction();
                    } else {
                        producer.flush();
                        producer.abortTransaction();
                    }
                }
            }
            final List<Long> read = new ArrayList<>();
            final TopicPartition partition = new TopicPartition(TOPIC, 0);
            try (IsthmusConsumer consumer = new IsthmusConsumer(
                    Map.of("bootstrap.servers", bootstrap, "isolation.level", "read_committed", "transport", "tcp"))) {
                consumer.assign(List.of(partition));
                consumer.seek(partition, 0);
                final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (read.size() < committed.size() && System.nanoTime() - deadline < 0) {
                    consumer.poll(
                            record -> read.add(
                                    record.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, record.valueOffset())),
                            10_000,
                            Duration.ofMillis(100));
                }
                consumer.poll(
                        record -> read.add(record.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, record.valueOffset())),
                        10_000,
                        Duration.ofMillis(200));
            }
            assertThat(read).as("every committed record, once, in order").isEqualTo(committed);
        }
    }
}
