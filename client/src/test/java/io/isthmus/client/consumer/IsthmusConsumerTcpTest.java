package io.isthmus.client.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.client.config.Transport;
import io.isthmus.client.testing.FakeKafkaBroker;
import io.isthmus.client.testing.TestBatches;
import io.isthmus.protocol.record.TimestampType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The consumer's TCP path, socket to application, against a {@link FakeKafkaBroker} whose fetch responses end in the
 * middle of a batch, as Kafka's size limits make them: every response holds one whole batch and half of the next.
 */
class IsthmusConsumerTcpTest {
    private static final TopicPartition TP = new TopicPartition(FakeKafkaBroker.TOPIC, 0);
    private static final int BATCHES = 10;
    private static final int RECORDS_PER_BATCH = 5;
    private static final int RECORDS = BATCHES * RECORDS_PER_BATCH;

    private FakeKafkaBroker broker;

    private void start(final short fetchVersion) throws Exception {
        broker = new FakeKafkaBroker(fetchVersion);
        int batchBytes = 0;
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment segment = arena.allocate(4096);
            for (int b = 0; b < BATCHES; b++) {
                final long end = TestBatches.write(segment, 0, (long) b * RECORDS_PER_BATCH, RECORDS_PER_BATCH);
                broker.append(segment.asSlice(0, end).toArray(ValueLayout.JAVA_BYTE), RECORDS_PER_BATCH);
                batchBytes = (int) end;
            }
        }
        final int wholeAndAHalf = batchBytes + batchBytes / 2;
        broker.cut((offset, available) -> wholeAndAHalf);
    }

    @AfterEach
    void stop() throws Exception {
        if (broker != null) {
            broker.close();
        }
    }

    private IsthmusConsumer consumer(final String... settings) throws Exception {
        final Map<String, String> config = new java.util.HashMap<>(
                Map.of("bootstrap.servers", broker.bootstrapServers(), "transport", "tcp", "fetch.max.wait.ms", "50"));
        for (int i = 0; i < settings.length; i += 2) {
            config.put(settings[i], settings[i + 1]);
        }
        final IsthmusConsumer consumer = new IsthmusConsumer(config);
        consumer.assign(List.of(TP));
        return consumer;
    }

    /** Polls until a batch with records comes (empty batches have nothing to release). */
    private static ConsumerBatch firstBatch(final IsthmusConsumer consumer) {
        ConsumerBatch batch = consumer.poll(Duration.ofSeconds(5));
        while (batch.isEmpty()) {
            batch = consumer.poll(Duration.ofSeconds(5));
        }
        return batch;
    }

    private static void awaitFetchFrom(final FakeKafkaBroker broker, final long offset) throws InterruptedException {
        final long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!broker.fetchOffsets().contains(offset) && System.nanoTime() - deadline < 0) {
            Thread.sleep(1);
        }
    }

    @ParameterizedTest(name = "fetch v{0}")
    @ValueSource(shorts = {12, 17})
    void shouldDeliverEveryRecordOnceInOrderWhenResponsesEndMidBatch(final short fetchVersion) throws Exception {
        start(fetchVersion);
        final List<Long> offsets = new ArrayList<>();
        try (IsthmusConsumer consumer = consumer()) {
            assertThat(consumer.transport()).isEqualTo(Transport.TCP);
            assertThat(consumer.rdmaTransport()).isNull();
            consumer.seek(TP, 0);
            boolean firstBatch = true;
            final long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (offsets.size() < RECORDS && System.nanoTime() - deadline < 0) {
                try (ConsumerBatch batch = consumer.poll(Duration.ofMillis(200))) {
                    if (firstBatch && !batch.isEmpty()) {
                        firstBatch = false;
                        awaitFetchFrom(broker, RECORDS_PER_BATCH);
                        assertThat(broker.fetchOffsets())
                                .as(
                                        "the next fetch left, from after the last whole batch, before the records were read")
                                .contains((long) RECORDS_PER_BATCH);
                    }
                    for (final ConsumedRecord record : batch) {
                        assertThat(record.valueAsString()).isEqualTo(TestBatches.value(record.offset()));
                        assertThat(record.topic()).isEqualTo(FakeKafkaBroker.TOPIC);
                        assertThat(record.timestampType()).isEqualTo(TimestampType.CREATE_TIME);
                        offsets.add(record.offset());
                    }
                }
            }
            assertThat(consumer.position(TP)).isEqualTo(RECORDS);
        }
        final List<Long> expected = new ArrayList<>();
        for (long o = 0; o < RECORDS; o++) {
            expected.add(o);
        }
        assertThat(offsets).isEqualTo(expected);
        assertThat(broker.fetchOffsets())
                .as("every fetch starts at a batch boundary: the truncated tail is fetched again, never read")
                .allMatch(offset -> offset % RECORDS_PER_BATCH == 0);
    }

    @Test
    void shouldDeliverThroughTheCallbackPathMovingThePositionPerRecord() throws Exception {
        start((short) 17);
        final List<Long> offsets = new ArrayList<>();
        try (IsthmusConsumer consumer = consumer()) {
            consumer.seek(TP, 3);
            final long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (offsets.size() < RECORDS - 3 && System.nanoTime() - deadline < 0) {
                consumer.poll(
                        record -> {
                            assertThat(consumer.position(TP)).isEqualTo(record.offset());
                            offsets.add(record.offset());
                        },
                        7,
                        Duration.ofMillis(200));
            }
            assertThat(consumer.position(TP)).isEqualTo(RECORDS);
        }
        assertThat(offsets).hasSize(RECORDS - 3).startsWith(3L, 4L, 5L).endsWith((long) RECORDS - 1);
        assertThat(offsets).isSorted().doesNotHaveDuplicates();
    }

    /** Small batches, so that anything allocated per batch, not only per record, shows. */
    @Test
    void shouldAllocateNothingPerRecordOrPerBatchOnTheCallbackPath() throws Exception {
        broker = new FakeKafkaBroker((short) 17);
        final int batches = 20_000;
        final int perBatch = 10;
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment segment = arena.allocate(4096);
            for (int b = 0; b < batches; b++) {
                final long end = TestBatches.write(segment, 0, (long) b * perBatch, perBatch);
                broker.append(segment.asSlice(0, end).toArray(ValueLayout.JAVA_BYTE), perBatch);
            }
        }
        broker.cut((offset, available) -> Math.min(available, 1 << 20));
        final com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        final long thread = Thread.currentThread().threadId();
        final long[] next = {0};
        final ConsumerRecordHandler handler = record -> {
            if (record.offset() != next[0]) {
                throw new AssertionError("offset " + record.offset() + ", expected " + next[0]);
            }
            next[0]++;
        };
        // check.crcs off: the CRC-32C of a batch is computed through a ByteBuffer view (protocol's Crc32c), a cost of
        // the check, not of the consume path measured here.
        try (IsthmusConsumer consumer = consumer("check.crcs", "false")) {
            consumer.seek(TP, 0);
            final long total = (long) batches * perBatch;
            final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (next[0] < total / 4 && System.nanoTime() - deadline < 0) {
                consumer.poll(handler, 10_000, Duration.ofMillis(200));
            }
            final long before = threads.getThreadAllocatedBytes(thread);
            final long measuredFrom = next[0];
            while (next[0] < total && System.nanoTime() - deadline < 0) {
                consumer.poll(handler, 10_000, Duration.ofMillis(200));
            }
            final long allocated = threads.getThreadAllocatedBytes(thread) - before;
            final long measured = next[0] - measuredFrom;
            assertThat(next[0]).isEqualTo(total);
            assertThat((double) allocated / measured)
                    .as("heap bytes per record: %d bytes over %d records", allocated, measured)
                    .isLessThan(1.0);
        }
    }

    /** As KafkaConsumer: a poll on an interrupted thread throws, the flag left set, instead of returning nothing. */
    @Test
    void shouldThrowInterruptExceptionFromAPollOnAnInterruptedThreadAndReadOnOnceItIsCleared() throws Exception {
        start((short) 17);
        try (IsthmusConsumer consumer = consumer()) {
            consumer.seek(TP, 0);
            Thread.currentThread().interrupt();
            try {
                assertThatThrownBy(() -> consumer.poll(Duration.ofSeconds(1))).isInstanceOf(InterruptException.class);
                assertThat(Thread.currentThread().isInterrupted()).isTrue();
            } finally {
                Thread.interrupted();
            }
            try (ConsumerBatch batch = firstBatch(consumer)) {
                assertThat(batch.iterator().next().offset()).isZero();
            }
        }
    }

    @Test
    void shouldDropBufferedDataOnASeek() throws Exception {
        start((short) 17);
        try (IsthmusConsumer consumer = consumer()) {
            consumer.seek(TP, 0);
            final ConsumerBatch batch = firstBatch(consumer);
            try (ConsumerBatch first = batch) {
                assertThat(first.next()).isTrue();
                assertThat(first.record().offset()).isZero();
            }
            consumer.seek(TP, 32);
            final List<Long> offsets = new ArrayList<>();
            final long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (offsets.size() < RECORDS - 32 && System.nanoTime() - deadline < 0) {
                try (ConsumerBatch next = consumer.poll(Duration.ofMillis(200))) {
                    for (final ConsumedRecord record : next) {
                        offsets.add(record.offset());
                    }
                }
            }
            assertThat(offsets).first().isEqualTo(32L);
            assertThat(offsets).hasSize(RECORDS - 32).isSorted().doesNotHaveDuplicates();
        }
    }

    /**
     * A stream engine's shape: one thread polls, another reads each batch in place and closes it. Every record arrives
     * once in order, slices die with their batch on the reading thread, and buffers closed there come back to the
     * polling thread (the fetched data pool takes them back on its own thread) so polling goes on.
     */
    @Test
    void shouldHandBatchesToAnotherThreadThatReadsAndClosesThem() throws Exception {
        start((short) 17);
        final List<Long> offsets = new ArrayList<>();
        final java.util.concurrent.ExecutorService task = java.util.concurrent.Executors.newSingleThreadExecutor();
        try (IsthmusConsumer consumer = consumer()) {
            consumer.seek(TP, 0);
            final long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            MemorySegment lastValue = null;
            while (offsets.size() < RECORDS && System.nanoTime() - deadline < 0) {
                final ConsumerBatch batch = consumer.poll(Duration.ofMillis(200));
                final MemorySegment value = task.submit(() -> {
                            MemorySegment v = null;
                            try (batch) {
                                for (final ConsumedRecord record : batch) {
                                    assertThat(record.valueAsString()).isEqualTo(TestBatches.value(record.offset()));
                                    offsets.add(record.offset());
                                    v = record.value();
                                }
                            }
                            return v;
                        })
                        .get();
                if (value != null) {
                    lastValue = value;
                }
            }
            assertThat(consumer.position(TP)).isEqualTo(RECORDS);
            final MemorySegment dead = lastValue;
            assertThat(dead).isNotNull();
            assertThatThrownBy(() -> task.submit(() -> dead.get(ValueLayout.JAVA_BYTE, 0))
                            .get())
                    .as("a slice is dead once its batch closed")
                    .hasCauseInstanceOf(IllegalStateException.class);
        } finally {
            task.shutdownNow();
        }
        final List<Long> expected = new ArrayList<>();
        for (long o = 0; o < RECORDS; o++) {
            expected.add(o);
        }
        assertThat(offsets).isEqualTo(expected);
    }

    /** Kafka's semantics: records a poll returned are the application's, whatever it seeks afterwards. */
    @Test
    void shouldKeepAPolledBatchWholeAcrossALaterSeek() throws Exception {
        start((short) 17);
        try (IsthmusConsumer consumer = consumer()) {
            consumer.seek(TP, 0);
            final ConsumerBatch batch = firstBatch(consumer);
            consumer.seek(TP, 40);
            final List<Long> offsets = new ArrayList<>();
            try (ConsumerBatch polled = batch) {
                for (final ConsumedRecord record : polled) {
                    offsets.add(record.offset());
                }
            }
            assertThat(offsets).containsExactly(0L, 1L, 2L, 3L, 4L);
            assertThat(consumer.position(TP)).isEqualTo(40L);
        }
    }

    @Test
    void shouldResetAnOffsetTheBrokerDoesNotHave() throws Exception {
        start((short) 17);
        try (IsthmusConsumer consumer = consumer("auto.offset.reset", "earliest")) {
            consumer.seek(TP, 1_000);
            final List<Long> offsets = new ArrayList<>();
            final long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (offsets.isEmpty() && System.nanoTime() - deadline < 0) {
                try (ConsumerBatch batch = consumer.poll(Duration.ofMillis(200))) {
                    for (final ConsumedRecord record : batch) {
                        offsets.add(record.offset());
                    }
                }
            }
            assertThat(offsets).first().isEqualTo(0L);
        }
    }

    @Test
    void shouldThrowWakeupOnTheNextPoll() throws Exception {
        start((short) 17);
        try (IsthmusConsumer consumer = consumer()) {
            consumer.seek(TP, RECORDS);
            consumer.wakeup();
            assertThatThrownBy(() -> consumer.poll(Duration.ofSeconds(5))).isInstanceOf(WakeupException.class);
            try (ConsumerBatch batch = consumer.poll(Duration.ZERO)) {
                assertThat(batch.isEmpty()).isTrue();
            }
        }
    }
}
