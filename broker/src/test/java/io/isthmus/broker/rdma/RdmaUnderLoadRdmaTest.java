package io.isthmus.broker.rdma;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.broker.Broker;
import io.isthmus.broker.log.LogReadResult;
import io.isthmus.broker.partition.Partition;
import io.isthmus.client.consumer.ConsumedRecord;
import io.isthmus.client.consumer.IsthmusConsumer;
import io.isthmus.client.producer.DeliveryListener;
import io.isthmus.client.producer.IsthmusProducer;
import io.isthmus.client.producer.ProducerConfig;
import io.isthmus.client.rdma.RdmaAccessRevokedException;
import io.isthmus.client.rdma.RdmaClientSettings;
import io.isthmus.client.rdma.RdmaProduceStream;
import io.isthmus.client.rdma.RdmaProducerTransport;
import io.isthmus.client.security.SecuritySettings;
import io.isthmus.protocol.record.RecordBatch;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The RDMA datapaths at any speed, on a real device: the isthmus producer at full credit depth while the broker's
 * datapath thread is slowed before every ack (as a loaded broker, a descheduled thread or a GC pause would), the
 * consumer reading one-sided while CPU hogs take every core, and queue pairs broken mid-stream. Each run sends 100,000
 * records and checks that the log holds every one exactly once and in send order, and that no send failed.
 *
 * <p>Before the fix these failed as the demo did: with every credit in use the exclusive producer posted one write more
 * than it had credits for, failed that batch while it was on the wire and wrote the next with the same order at the
 * same tail, and the broker revoked access and answered the rest with non-retriable errors.
 */
@Tag("rdma")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RdmaUnderLoadRdmaTest {
    private static final int RECORDS = 100_000;
    private static final int VALUE_BYTES = 24;
    /** Long enough per ack that the producer's credits fill and stay full; short enough for 100,000 records. */
    private static final long ACK_DELAY_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

    private static final Duration DEADLINE = Duration.ofMinutes(4);

    private Path logDir;
    private Broker broker;
    private RdmaDatapath datapath;

    @BeforeAll
    void startBroker() throws Exception {
        logDir = Files.createTempDirectory("rdma-load");
        // Several segments per run: producers roll and consumers cross sealed segments under load too.
        broker = RdmaTestBroker.start(logDir, Map.of("log.segment.bytes", Integer.toString(1024 * 1024)));
        datapath = broker.rdma().datapath().orElseThrow();
        // A first request to a cold broker in the emulated guest takes seconds; the tests' short request timeout is
        // for stranded RDMA writes, not for that.
        try (IsthmusProducer warmUp = new IsthmusProducer(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS,
                "127.0.0.1:" + broker.endpoints().getFirst().port(),
                ProducerConfig.TRANSPORT,
                "tcp"))) {
            warmUp.send(topic("warm-up"), new byte[1], new byte[1]);
            warmUp.flush();
        }
    }

    @AfterEach
    void noDelay() {
        datapath.delayAcks(0);
    }

    @AfterAll
    void stopBroker() throws Exception {
        broker.close();
    }

    @Test
    void shouldDeliverEveryRecordOnceInOrderAtFullCreditDepthWhileAcksAreSlow() throws Exception {
        final String topic = topic("load-exclusive");
        datapath.delayAcks(ACK_DELAY_NANOS);
        final long revokedBefore = datapath.revokedWrites();
        final long rejectedBefore = datapath.rejectedWrites();

        final Produced produced = produce(topic, Map.of(), null);

        assertThat(produced.errors).as("send failures").isEmpty();
        assertThat(produced.delivered.get()).isEqualTo(RECORDS);
        assertThat(datapath.rejectedWrites() - rejectedBefore)
                .as("writes the broker rejected")
                .isZero();
        assertThat(datapath.revokedWrites() - revokedBefore)
                .as("writes that found their grant gone")
                .isZero();
        assertExactlyOnceInOrder(topic, "tcp");
    }

    @Test
    void shouldDeliverEveryRecordOnceInOrderThroughSharedProduceWhileAcksAreSlow() throws Exception {
        final String topic = topic("load-shared");
        datapath.delayAcks(ACK_DELAY_NANOS);
        final long revocationsBefore = datapath.sharedRevocations();

        final Produced produced = produce(topic, Map.of(RdmaClientSettings.PRODUCE_MODE, "shared"), null);

        assertThat(produced.errors).as("send failures").isEmpty();
        assertThat(produced.delivered.get()).isEqualTo(RECORDS);
        assertThat(datapath.sharedRevocations() - revocationsBefore)
                .as("shared segments revoked")
                .isZero();
        assertExactlyOnceInOrder(topic, "tcp");
    }

    @Test
    void shouldConsumeEveryRecordOnceInOrderOverRdmaWhileEveryCoreIsBusy() throws Exception {
        final String topic = topic("load-consume");
        datapath.delayAcks(ACK_DELAY_NANOS);
        final AtomicBoolean hogging = new AtomicBoolean(true);
        final List<Thread> hogs = new ArrayList<>();
        for (int i = 0; i < Runtime.getRuntime().availableProcessors(); i++) {
            hogs.add(Thread.ofPlatform().name("cpu-hog-" + i).daemon(true).start(() -> {
                long x = 0;
                while (hogging.get()) {
                    x += System.nanoTime() & 7;
                }
                if (x == 42) {
                    System.out.print(""); // keeps the loop from being optimised away
                }
            }));
        }
        try {
            // The consumer tails the partition while it is written, with completions slowed by the hogs.
            final ConcurrentLinkedQueue<Throwable> consumerFailure = new ConcurrentLinkedQueue<>();
            final Thread consumer = Thread.ofPlatform()
                    .name("rdma-load-consumer")
                    .start(() -> {
                        try {
                            assertExactlyOnceInOrder(topic, "rdma");
                        } catch (final Throwable t) {
                            consumerFailure.add(t);
                        }
                    });
            final Produced produced = produce(topic, Map.of(), null);
            assertThat(produced.errors).as("send failures").isEmpty();
            consumer.join(DEADLINE.toMillis());
            assertThat(consumer.isAlive()).as("consumer finished").isFalse();
            assertThat(consumerFailure).as("consumer failures").isEmpty();
        } finally {
            hogging.set(false);
            for (final Thread hog : hogs) {
                hog.join();
            }
        }
    }

    @Test
    void shouldDeliverEveryRecordOnceInOrderWhenQueuePairsBreakMidStream() throws Exception {
        final String topic = topic("load-broken");
        datapath.delayAcks(ACK_DELAY_NANOS / 4);
        final AtomicLong breaks = new AtomicLong();
        final long duplicatesBefore = datapath.duplicateWrites();

        // Three times during the run the broker's queue pairs go to the error state with writes in flight: their fate
        // is unknown to the producer, which retries them; the idempotence check answers the committed ones as
        // duplicates.
        final Produced produced = produce(topic, Map.of(), () -> {
            if (datapath.breakQueuePairs().get(30, TimeUnit.SECONDS) > 0) {
                breaks.incrementAndGet();
            }
        });

        assertThat(breaks.get()).isEqualTo(3);
        assertThat(produced.errors).as("send failures").isEmpty();
        assertThat(produced.delivered.get()).isEqualTo(RECORDS);
        assertExactlyOnceInOrder(topic, "tcp");
        // Not asserted to be non-zero: whether a broken write was committed before its ack was lost is up to timing.
        assertThat(datapath.duplicateWrites()).isGreaterThanOrEqualTo(duplicatesBefore);
    }

    @Test
    void shouldNeverPostAnotherWriteUnderARevokedGrantAndRetryInOrderAfterAskingAgain() throws Exception {
        final String topic = topic("revoked-stream");
        final int credits = 8;
        final RdmaClientSettings settings = exclusiveProducer(credits, 30_000);
        final List<byte[]> batches = new ArrayList<>();
        for (int i = 0; i < 3 + credits + 2; i++) {
            batches.add(RdmaBatches.batch("r" + i, 2, 40));
        }
        try (Arena arena = Arena.ofConfined();
                RdmaProducerTransport transport =
                        new RdmaProducerTransport(settings, "revocation-test", null, (short) 1)) {
            final MemorySegment slab = arena.allocate(64 * 1024, 4096);
            final long[] at = new long[batches.size()];
            long used = 0;
            for (int i = 0; i < batches.size(); i++) {
                at[i] = used;
                MemorySegment.copy(MemorySegment.ofArray(batches.get(i)), 0, slab, used, batches.get(i).length);
                used += (batches.get(i).length + 63) & ~63L;
            }
            final RdmaProduceStream stream = transport.stream(
                    topic,
                    0,
                    new InetSocketAddress(
                            "127.0.0.1", broker.endpoints().getFirst().port()));
            final List<Object> acked = new ArrayList<>();
            final List<Object> revoked = new ArrayList<>();
            final RdmaProducerTransport.AckHandler handler = (token, baseOffset, error) -> {
                if (error == null) {
                    acked.add(token);
                } else {
                    assertThat(error).isInstanceOf(RdmaAccessRevokedException.class);
                    revoked.add(token);
                }
            };

            // Three writes commit.
            for (int i = 0; i < 3; i++) {
                assertThat(write(transport, stream, slab, at[i], batches.get(i).length, i))
                        .isTrue();
            }
            awaitAnswers(transport, handler, acked, revoked, 3);
            assertThat(acked).containsExactly(0, 1, 2);

            // The broker suspends the grant (as after a duplicate); the producer has `credits` writes on the wire
            // before it can know, each answered ACCESS_REVOKED on its own.
            assertThat(datapath.suspendExclusiveProduceGrants().get(30, TimeUnit.SECONDS))
                    .isEqualTo(1);
            final long revokedBefore = datapath.revokedWrites();
            final Partition partition =
                    broker.partitions().partition(new TopicPartition(topic, 0)).orElseThrow();
            final long commitsBefore = datapath.commits();
            for (int i = 3; i < 3 + credits; i++) {
                assertThat(write(transport, stream, slab, at[i], batches.get(i).length, i))
                        .isTrue();
            }
            assertThat(write(transport, stream, slab, at[3 + credits], 10, 99))
                    .as("no write beyond the credits")
                    .isFalse();
            final long writesPosted = transport.writes();
            // From the first revocation on, nothing more is posted until every write in flight is answered.
            while (acked.size() + revoked.size() < 3 + credits) {
                transport.poll(handler);
                if (!revoked.isEmpty() && acked.size() + revoked.size() < 3 + credits) {
                    assertThat(write(transport, stream, slab, at[3 + credits], 10, 99))
                            .as("a write while revoked writes are still in flight")
                            .isFalse();
                    assertThat(transport.writes()).isEqualTo(writesPosted);
                }
            }
            assertThat(revoked).hasSize(credits);
            assertThat(datapath.revokedWrites() - revokedBefore)
                    .as("writes that reached the broker under the suspended grant: those on the wire, no more")
                    .isEqualTo(credits);
            assertThat(partition.logEndOffset())
                    .as("nothing committed under the dropped grant")
                    .isEqualTo(6);

            // The revoked writes go again, in order, after access is asked for again: they commit behind the first
            // three, and nothing reached the broker under the old grant after the producer learned of it.
            final List<Object> retried = new ArrayList<>(revoked);
            revoked.clear();
            acked.clear();
            for (final Object token : retried) {
                final int i = (Integer) token;
                while (!write(transport, stream, slab, at[i], batches.get(i).length, i)) {
                    transport.poll(handler);
                }
            }
            awaitAnswers(transport, handler, acked, revoked, credits);
            assertThat(revoked).isEmpty();
            assertThat(acked).containsExactlyElementsOf(retried);
            assertThat(datapath.commits() - commitsBefore)
                    .as("commits since the revocation: the retries, nothing else")
                    .isEqualTo(credits);
            assertThat(datapath.revokedWrites() - revokedBefore).isEqualTo(credits);
            assertThat(partition.logEndOffset()).isEqualTo(2L * (3 + credits));
            // Every batch once, in the order written: the i-th batch's records start with "r<i>-".
            long offset = 0;
            for (int i = 0; i < 3 + credits; i++) {
                try (LogReadResult read = partition.read(offset, Integer.MAX_VALUE)) {
                    final RecordBatch view = new RecordBatch().wrap(read.records(), 0);
                    assertThat(view.baseOffset()).isEqualTo(offset);
                    final byte[] expected = RdmaBatches.asCommitted(batches.get(i), offset, 0);
                    assertThat(read.records().asSlice(0, expected.length).toArray(ValueLayout.JAVA_BYTE))
                            .as("batch %d", i)
                            .isEqualTo(expected);
                }
                offset += 2;
            }
        }
    }

    /**
     * A write that reached the broker's NIC but was never handled (its datapath thread held up) is not answered; the
     * broker then stops. The producer sees its control connection closed and fails the write at once, as retriable
     * with its fate unknown, instead of waiting out the silence (ten minutes here): that is how it leaves a broker that
     * was stopped or killed for the leader a cluster's metadata names next.
     */
    @Test
    void shouldFailAWriteInFlightAtOnceWhenTheBrokerClosesItsConnectionWithoutAnsweringIt() throws Exception {
        final Path dir = Files.createTempDirectory("rdma-closing");
        final Broker closing = RdmaTestBroker.start(dir, Map.of());
        final RdmaDatapath closingDatapath = closing.rdma().datapath().orElseThrow();
        closing.partitions().createTopic("closing", 1);
        final RdmaClientSettings settings = exclusiveProducer(4, 600_000);
        final byte[] batch = RdmaBatches.batch("closing", 2, 40);
        final java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        Thread closer = null;
        try (Arena arena = Arena.ofConfined();
                RdmaProducerTransport transport =
                        new RdmaProducerTransport(settings, "closing-test", null, (short) 1)) {
            final MemorySegment slab = arena.allocate(4096, 4096);
            MemorySegment.copy(MemorySegment.ofArray(batch), 0, slab, 0, batch.length);
            final RdmaProduceStream stream = transport.stream(
                    "closing",
                    0,
                    new InetSocketAddress(
                            "127.0.0.1", closing.endpoints().getFirst().port()));
            final List<Object> acked = new ArrayList<>();
            final List<RuntimeException> failures = new ArrayList<>();
            final RdmaProducerTransport.AckHandler handler = (token, baseOffset, error) -> {
                if (error == null) {
                    acked.add(token);
                } else {
                    failures.add(error);
                }
            };
            assertThat(write(transport, stream, slab, 0, batch.length, 0)).isTrue();
            final long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (acked.isEmpty() && failures.isEmpty() && System.nanoTime() - deadline < 0) {
                transport.poll(handler);
            }
            assertThat(acked).as("the first write, answered").containsExactly(0);

            // The datapath thread is held up: the next write lands at the broker's NIC and is never handled.
            closingDatapath.submit(() -> {
                try {
                    release.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return null;
            });
            assertThat(write(transport, stream, slab, 0, batch.length, 1)).isTrue();
            closer = Thread.ofPlatform().start(() -> {
                try {
                    closing.close();
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            while (failures.isEmpty() && acked.size() == 1 && System.nanoTime() - deadline < 0) {
                transport.poll(handler);
            }
            assertThat(acked).as("nothing answered the held-up write").containsExactly(0);
            assertThat(failures).singleElement().satisfies(failure -> {
                assertThat(failure)
                        .isInstanceOf(io.isthmus.client.rdma.RdmaConnectionLostException.class)
                        .isInstanceOf(org.apache.kafka.common.errors.NetworkException.class)
                        .hasMessageContaining("closed the control connection");
            });
            assertThat(transport.inFlight()).isZero();
        } finally {
            release.countDown();
            if (closer != null) {
                closer.join();
            } else {
                closing.close();
            }
        }
    }

    // ------------------------------------------------------------------ helpers

    /** An exclusive RDMA producer's settings on the guest's device, for transports a test drives by hand. */
    private static RdmaClientSettings exclusiveProducer(final int credits, final long requestTimeoutMs) {
        return new RdmaClientSettings(
                RdmaTestClient.deviceName(),
                RdmaTestClient.PORT,
                RdmaTestClient.gidIndex(),
                64 * 1024,
                credits,
                requestTimeoutMs,
                false,
                SecuritySettings.PLAINTEXT);
    }

    private static boolean write(
            final RdmaProducerTransport transport,
            final RdmaProduceStream stream,
            final MemorySegment slab,
            final long offset,
            final int length,
            final int token) {
        return transport.tryWrite(stream, slab.asSlice(offset, length), length, token);
    }

    private static void awaitAnswers(
            final RdmaProducerTransport transport,
            final RdmaProducerTransport.AckHandler handler,
            final List<Object> acked,
            final List<Object> revoked,
            final int expected) {
        final long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (acked.size() + revoked.size() < expected) {
            transport.poll(handler);
            assertThat(System.nanoTime() - deadline).as("answers in time").isNegative();
        }
    }

    private String topic(final String name) {
        broker.partitions().createTopic(name, 1);
        return name;
    }

    /** What a producer run delivered and every error its listener saw. */
    private record Produced(AtomicLong delivered, ConcurrentLinkedQueue<Throwable> errors) {}

    /** A fault to inject while the producer has writes in flight. */
    private interface Fault {
        void inject() throws Exception;
    }

    /**
     * Sends {@link #RECORDS} records, value = sequence number, through an RDMA producer at full credit depth. With a
     * {@code fault}, in four quarters: after each of the first three is sent, once half of it is delivered (the rest
     * is in flight or queued), the fault is injected.
     */
    private Produced produce(final String topic, final Map<String, String> extra, final Fault fault) throws Exception {
        final AtomicLong delivered = new AtomicLong();
        final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        final DeliveryListener listener = (t, partition, baseOffset, count, error) -> {
            if (error != null) {
                errors.add(error);
            } else {
                delivered.addAndGet(count);
            }
        };
        final Map<String, Object> settings = new HashMap<>();
        settings.put(
                ProducerConfig.BOOTSTRAP_SERVERS,
                "127.0.0.1:" + broker.endpoints().getFirst().port());
        settings.put(ProducerConfig.TRANSPORT, "rdma");
        settings.put("rdma.device", RdmaTestClient.deviceName());
        settings.put("rdma.gid.index", Integer.toString(RdmaTestClient.gidIndex()));
        // Small batches and no linger: many writes, so the credits (the default 32) are always all in use.
        settings.put(ProducerConfig.BATCH_SIZE, "2048");
        settings.put(ProducerConfig.LINGER_MS, "0");
        // Writes stranded by a broken queue pair are given up after this long (then retried).
        settings.put(ProducerConfig.REQUEST_TIMEOUT_MS, "10000");
        settings.putAll(extra);
        final byte[] value = new byte[VALUE_BYTES];
        final MemorySegment valueView = MemorySegment.ofArray(value);
        try (IsthmusProducer producer = new IsthmusProducer(new ProducerConfig(settings), listener)) {
            final int quarter = RECORDS / 4;
            for (long seq = 0; seq < RECORDS; seq++) {
                valueView.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, seq);
                producer.send(topic, 0, IsthmusProducer.NOW, null, value, null, null);
                if (fault != null && (seq + 1) % quarter == 0 && seq + 1 < RECORDS) {
                    final long deadline = System.nanoTime() + DEADLINE.toNanos();
                    while (delivered.get() + errors.size() < seq + 1 - quarter / 2) {
                        assertThat(System.nanoTime() - deadline)
                                .as("half a quarter delivered")
                                .isNegative();
                        Thread.sleep(1);
                    }
                    fault.inject();
                }
            }
            producer.flush();
        }
        return new Produced(delivered, errors);
    }

    /** Reads the partition from the start: record {@code i} must be at offset {@code i} and carry sequence {@code i}. */
    private void assertExactlyOnceInOrder(final String topic, final String transport) {
        final Map<String, Object> settings = new HashMap<>();
        settings.put(
                "bootstrap.servers",
                "127.0.0.1:" + broker.endpoints().getFirst().port());
        settings.put("transport", transport);
        settings.put("rdma.device", RdmaTestClient.deviceName());
        settings.put("rdma.gid.index", Integer.toString(RdmaTestClient.gidIndex()));
        settings.put("fetch.max.wait.ms", "100");
        final long[] next = {0};
        final long deadline = System.nanoTime() + DEADLINE.toNanos();
        try (IsthmusConsumer consumer = new IsthmusConsumer(settings)) {
            final TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            while (next[0] < RECORDS) {
                consumer.poll(
                        (ConsumedRecord record) -> {
                            final long seq =
                                    record.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, record.valueOffset());
                            assertThat(record.offset())
                                    .as("offset of sequence %d", seq)
                                    .isEqualTo(next[0]);
                            assertThat(seq)
                                    .as("sequence at offset %d", record.offset())
                                    .isEqualTo(next[0]);
                            assertThat(record.valueSize()).isEqualTo(VALUE_BYTES);
                            next[0]++;
                        },
                        4096,
                        Duration.ofMillis(100));
                assertThat(System.nanoTime() - deadline)
                        .as("all %d records read in time; read %d", RECORDS, next[0])
                        .isNegative();
            }
            assertThat(consumer.endOffsets(List.of(partition)).get(partition))
                    .as("nothing beyond the records sent")
                    .isEqualTo(RECORDS);
        }
    }
}
