package io.isthmus.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.broker.Broker;
import io.isthmus.client.admin.IsthmusAdmin;
import io.isthmus.client.config.Transport;
import io.isthmus.client.consumer.ConsumerBatch;
import io.isthmus.client.consumer.ConsumerRecordHandler;
import io.isthmus.client.consumer.IsthmusConsumer;
import io.isthmus.client.producer.IsthmusProducer;
import io.isthmus.e2e.EmbeddedBroker;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The zero-copy contract, measured on each datapath a consumer on this host can take (TCP, and shared memory, where the
 * "receive buffer" is the read-only mapping of the broker's segment file): a million records consumed with (amortised)
 * no heap allocation on the polling thread, value slices that point into the receive buffer, and slices that die with
 * their batch.
 */
class ZeroCopyConsumerTest {
    private static final String TOPIC = "zero-copy";
    private static final int RECORDS = 1_000_000;
    private static final int VALUE_SIZE = 100;
    private static final TopicPartition PARTITION = new TopicPartition(TOPIC, 0);

    @TempDir
    static Path logDir;

    private static Broker broker;

    @BeforeAll
    static void produceAMillionRecords() throws Exception {
        broker = EmbeddedBroker.start(logDir, "log.segment.bytes=" + (256 * 1024 * 1024));
        try (IsthmusAdmin admin = new IsthmusAdmin(broker.bootstrapServers())) {
            admin.createTopic(TOPIC, 1, (short) 1);
        }
        try (IsthmusProducer producer = new IsthmusProducer(Map.of(
                        "bootstrap.servers", broker.bootstrapServers(), "batch.size", Integer.toString(256 * 1024)));
                Arena arena = Arena.ofConfined()) {
            final MemorySegment value = arena.allocate(VALUE_SIZE);
            for (int i = 0; i < RECORDS; i++) {
                value.set(ValueLayout.JAVA_INT_UNALIGNED, 0, i);
                producer.send(TOPIC, 0, IsthmusProducer.NOW, null, value, null, null);
            }
            producer.flush();
        }
    }

    @AfterAll
    static void stopBroker() throws Exception {
        broker.close();
    }

    private static IsthmusConsumer consumer(final String transport) {
        final IsthmusConsumer consumer = new IsthmusConsumer(Map.of(
                "bootstrap.servers", broker.bootstrapServers(),
                "max.partition.fetch.bytes", Integer.toString(8 * 1024 * 1024),
                "fetch.max.bytes", Integer.toString(8 * 1024 * 1024),
                "transport", transport));
        assertThat(consumer.transport()).isEqualTo(Transport.forName(transport));
        consumer.assign(List.of(PARTITION));
        consumer.seek(PARTITION, 0);
        return consumer;
    }

    /** Counts records and checks each value's sequence number in place. */
    private static final class CountingHandler implements ConsumerRecordHandler {
        long count;
        long mismatches;

        @Override
        public void onRecord(final io.isthmus.client.consumer.ConsumedRecord record) {
            if (record.segment().get(ValueLayout.JAVA_INT_UNALIGNED, record.valueOffset()) != (int) record.offset()
                    || record.valueSize() != VALUE_SIZE) {
                mismatches++;
            }
            count++;
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void shouldConsumeAMillionRecordsAllocatingUnderOneBytePerRecord(final String transport) {
        final com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        final long thread = Thread.currentThread().threadId();
        try (IsthmusConsumer consumer = consumer(transport)) {
            final CountingHandler handler = new CountingHandler();
            final long warmUp = 200_000;
            while (handler.count < warmUp) {
                consumer.poll(handler, (int) (warmUp - handler.count), Duration.ofSeconds(5));
            }
            final long before = threads.getThreadAllocatedBytes(thread);
            final long measuredFrom = handler.count;
            while (handler.count < RECORDS) {
                final int n = consumer.poll(handler, 10_000, Duration.ofSeconds(5));
                if (n == 0) {
                    break;
                }
            }
            final long allocated = threads.getThreadAllocatedBytes(thread) - before;
            final long measured = handler.count - measuredFrom;
            assertThat(handler.count).isEqualTo(RECORDS);
            assertThat(handler.mismatches).isZero();
            assertThat((double) allocated / measured)
                    .as("heap bytes per record: %d bytes over %d records", allocated, measured)
                    .isLessThan(1.0);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void shouldReportTheLagAgainstTheHighWatermarkOfTheLastFetchWithoutAskingTheBroker(final String transport) {
        try (IsthmusConsumer consumer = consumer(transport)) {
            assertThat(consumer.currentLag(PARTITION)).as("before any fetch").isEmpty();
            final CountingHandler handler = new CountingHandler();
            while (handler.count == 0) {
                consumer.poll(handler, 1000, Duration.ofSeconds(5));
            }
            assertThat(consumer.currentLag(PARTITION)).hasValue(RECORDS - handler.count);
            while (handler.count < RECORDS) {
                consumer.poll(handler, 100_000, Duration.ofSeconds(5));
            }
            assertThat(consumer.currentLag(PARTITION)).hasValue(0);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void shouldHandOutValueSlicesOfTheReceiveBufferThatDieWithTheBatch(final String transport) {
        try (IsthmusConsumer consumer = consumer(transport)) {
            ConsumerBatch batch = consumer.poll(Duration.ofSeconds(5));
            while (batch.isEmpty()) {
                batch = consumer.poll(Duration.ofSeconds(5));
            }
            final MemorySegment value;
            final MemorySegment key;
            try (ConsumerBatch open = batch) {
                assertThat(open.next()).isTrue();
                value = open.record().value();
                key = open.record().key();
                final MemorySegment receiveBuffer = open.receiveBuffer();
                assertThat(value.address())
                        .isBetween(
                                receiveBuffer.address(),
                                receiveBuffer.address() + receiveBuffer.byteSize() - VALUE_SIZE);
                assertThat(value.get(ValueLayout.JAVA_INT_UNALIGNED, 0)).isEqualTo(0);
                assertThat(key).isNull();
                long count = 1;
                while (open.next()) {
                    final MemorySegment v = open.record().value();
                    assertThat(v.address())
                            .isBetween(
                                    receiveBuffer.address(),
                                    receiveBuffer.address() + receiveBuffer.byteSize() - VALUE_SIZE);
                    assertThat(v.get(ValueLayout.JAVA_INT_UNALIGNED, 0)).isEqualTo((int) count);
                    count++;
                }
                assertThat(count).isGreaterThan(1);
            }
            assertThatThrownBy(() -> value.get(ValueLayout.JAVA_INT_UNALIGNED, 0))
                    .isInstanceOf(IllegalStateException.class);
            final ConsumerBatch closed = batch;
            assertThatThrownBy(closed::next).isInstanceOf(IllegalStateException.class);
        }
    }
}
