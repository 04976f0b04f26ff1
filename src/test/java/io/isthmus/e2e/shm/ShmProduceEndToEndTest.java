package io.isthmus.e2e.shm;

import static io.isthmus.e2e.LoopbackPorts.freePort;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.broker.Broker;
import io.isthmus.client.admin.IsthmusAdmin;
import io.isthmus.client.config.Transport;
import io.isthmus.client.consumer.ConsumedRecord;
import io.isthmus.client.consumer.IsthmusConsumer;
import io.isthmus.client.producer.IsthmusProducer;
import io.isthmus.client.security.SecuritySettings;
import io.isthmus.client.shm.ShmConnection;
import io.isthmus.e2e.BrokerProcess;
import io.isthmus.e2e.EmbeddedBroker;
import io.isthmus.protocol.control.ControlErrorCodes;
import io.isthmus.protocol.control.ShmDirectoryLayout;
import io.isthmus.protocol.control.ShmProduceAccessResponse;
import io.isthmus.protocol.control.ShmProduceResponse;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Shared-memory produce ({@code transport=shm}) end to end: producers that copy batches into staging files of the
 * broker's shared-memory directory and ring a doorbell per batch. Every value is {@code [producer tag][sequence]}, so a
 * record lost, duplicated, reordered or torn shows when the log is read back. Broker and producers run in separate
 * processes where the test is about one of them dying.
 */
class ShmProduceEndToEndTest {
    private static final String TOPIC = "shm-produce";
    private static final TopicPartition PARTITION = new TopicPartition(TOPIC, 0);
    private static final Duration DEADLINE = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    /** The log of the partition as tag → sequences in offset order, with the offsets checked to have no hole. */
    private static Map<Long, List<Long>> readLog(final String bootstrap, final long records) {
        final Map<Long, List<Long>> byTag = new HashMap<>();
        final long[] next = {0};
        try (IsthmusConsumer consumer =
                new IsthmusConsumer(Map.of("bootstrap.servers", bootstrap, "transport", "tcp"))) {
            consumer.assign(List.of(PARTITION));
            consumer.seek(PARTITION, 0);
            final long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (next[0] < records) {
                assertThat(System.nanoTime() - deadline)
                        .as("%d records read back, got %d", records, next[0])
                        .isNegative();
                consumer.poll(
                        (ConsumedRecord record) -> {
                            assertThat(record.offset()).as("no hole, no repeat").isEqualTo(next[0]);
                            next[0]++;
                            final MemorySegment value = record.segment();
                            assertThat(record.valueSize()).isEqualTo(100);
                            byTag.computeIfAbsent(
                                            value.get(ValueLayout.JAVA_LONG_UNALIGNED, record.valueOffset()),
                                            t -> new ArrayList<>())
                                    .add(value.get(ValueLayout.JAVA_LONG_UNALIGNED, record.valueOffset() + 8));
                        },
                        10_000,
                        Duration.ofMillis(100));
            }
        }
        return byTag;
    }

    private static List<Long> sequence(final long count) {
        final List<Long> expected = new ArrayList<>();
        for (long i = 0; i < count; i++) {
            expected.add(i);
        }
        return expected;
    }

    private static void createTopic(final String bootstrap) {
        try (IsthmusAdmin admin = new IsthmusAdmin(bootstrap)) {
            admin.createTopic(TOPIC, 1, (short) 1);
        }
    }

    private static IsthmusProducer shmProducer(final String bootstrap) {
        return new IsthmusProducer(Map.of("bootstrap.servers", bootstrap, "transport", "shm", "acks", "all"));
    }

    private static void send(final IsthmusProducer producer, final long tag, final long from, final long to) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment value = arena.allocate(100);
            value.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, tag);
            for (long i = from; i < to; i++) {
                value.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, i);
                producer.send(TOPIC, 0, IsthmusProducer.NOW, null, value, null, null);
            }
            producer.flush();
        }
    }

    private static List<Path> stagingFiles(final Path shmDir) throws Exception {
        try (Stream<Path> files = Files.list(shmDir)) {
            return files.filter(f -> f.getFileName().toString().startsWith(ShmDirectoryLayout.STAGING_FILE_PREFIX))
                    .toList();
        }
    }

    @Test
    void shouldProduceOverSharedMemoryAcrossSegmentRollsExactlyOnceInOrder() throws Exception {
        try (Broker broker = EmbeddedBroker.start(dir, "log.segment.bytes=" + (1024 * 1024))) {
            final String bootstrap = broker.bootstrapServers();
            createTopic(bootstrap);
            try (IsthmusProducer producer = shmProducer(bootstrap)) {
                assertThat(producer.transport()).isEqualTo(Transport.SHM);
                send(producer, 1, 0, 100_000);
                assertThat(producer.shmTransport().writes()).as("doorbells").isPositive();
                assertThat(producer.shmTransport().accessRequests()).isEqualTo(1);
                assertThat(broker.shm().produceGrantCount()).isEqualTo(1);
                assertThat(stagingFiles(dir.resolve(".isthmus-shm"))).hasSize(1);
            }
            assertThat(broker.partitions()
                            .partition(PARTITION)
                            .orElseThrow()
                            .log()
                            .segments()
                            .size())
                    .as("rolled across 1 MiB segments")
                    .isGreaterThan(5);
            assertThat(readLog(bootstrap, 100_000)).isEqualTo(Map.of(1L, sequence(100_000)));
            final long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (broker.shm().produceGrantCount() > 0) {
                assertThat(System.nanoTime() - deadline).as("staging released").isNegative();
                Thread.sleep(10);
            }
            assertThat(stagingFiles(dir.resolve(".isthmus-shm")))
                    .as("staging file deleted")
                    .isEmpty();
        }
    }

    @Test
    void shouldCommitSharedMemoryAndTcpProducersOfOnePartitionInOneOrderAndSurviveAProducerKilledMidStream()
            throws Exception {
        final int port = freePort();
        final String bootstrap = "127.0.0.1:" + port;
        final Path logs = dir.resolve("logs");
        try (BrokerProcess broker = BrokerProcess.start(logs, port, "log.segment.bytes=" + (1024 * 1024))) {
            createTopic(bootstrap);
            // Two shared-memory producer processes and kafka-clients over TCP on one partition at once; the second
            // shared-memory producer is killed with kill -9 mid-stream.
            final ChildProducer steady = ChildProducer.start(bootstrap, 1, 150_000);
            final ChildProducer killed = ChildProducer.start(bootstrap, 2, Long.MAX_VALUE);
            final long tcpRecords = 100_000;
            try (KafkaProducer<byte[], byte[]> tcp = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                    bootstrap,
                    ProducerConfig.ACKS_CONFIG,
                    "all",
                    ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                    true,
                    ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
                    ByteArraySerializer.class,
                    ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
                    ByteArraySerializer.class))) {
                long killedAcked = -1;
                for (long i = 0; i < tcpRecords; i++) {
                    final byte[] value = new byte[100];
                    java.nio.ByteBuffer.wrap(value)
                            .order(java.nio.ByteOrder.LITTLE_ENDIAN)
                            .putLong(3)
                            .putLong(i);
                    tcp.send(new ProducerRecord<>(TOPIC, 0, null, value));
                    if (i == tcpRecords / 2) {
                        killedAcked = killed.awaitAcked(20_000);
                        killed.kill9();
                    }
                }
                tcp.flush();
                assertThat(steady.awaitDone()).startsWith("done acked=150000 failed=0 transport=SHM");
                final Map<Long, List<Long>> log;
                final List<Long> ofKilled;
                // Everything in the log: the steady producers' records and a prefix of the killed one's.
                final long deadline = System.nanoTime() + DEADLINE.toNanos();
                long end;
                do {
                    assertThat(System.nanoTime() - deadline).isNegative();
                    try (IsthmusAdmin admin = new IsthmusAdmin(bootstrap)) {
                        end = admin.listOffsets(Map.of(PARTITION, -1L))
                                .get(PARTITION)
                                .offset();
                    }
                } while (end < 250_000 + killedAcked);
                log = readLog(bootstrap, end);
                ofKilled = log.get(2L);
                assertThat(log.get(1L)).as("the steady shm producer's").isEqualTo(sequence(150_000));
                assertThat(log.get(3L)).as("kafka-clients' over TCP").isEqualTo(sequence(tcpRecords));
                assertThat(ofKilled)
                        .as("the killed producer's: every acknowledged record, once, in order, nothing torn")
                        .isEqualTo(sequence(ofKilled.size()));
                assertThat((long) ofKilled.size()).isGreaterThanOrEqualTo(killedAcked);
                assertThat(log.keySet()).containsExactlyInAnyOrder(1L, 2L, 3L);
            } finally {
                steady.close();
                killed.close();
            }
            // The killed producer's session ended: its staging file is gone.
            final long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (!stagingFiles(logs.resolve(".isthmus-shm")).isEmpty()) {
                assertThat(System.nanoTime() - deadline)
                        .as("staging files of ended sessions")
                        .isNegative();
                Thread.sleep(20);
            }
        }
    }

    @Test
    void shouldReattachAfterTheBrokerIsKilledAndRestartedWithNothingLostOrRepeated() throws Exception {
        final int port = freePort();
        final String bootstrap = "127.0.0.1:" + port;
        final Path logs = dir.resolve("logs");
        BrokerProcess broker = BrokerProcess.start(logs, port);
        try {
            createTopic(bootstrap);
            try (IsthmusProducer producer = shmProducer(bootstrap)) {
                send(producer, 1, 0, 20_000);
                for (int restart = 0; restart < 2; restart++) {
                    broker.kill9();
                    broker = BrokerProcess.start(logs, port);
                    send(producer, 1, 20_000 * (restart + 1L), 20_000 * (restart + 2L));
                }
                assertThat(producer.transport()).isEqualTo(Transport.SHM);
                assertThat(producer.shmTransport().connectionsLost()).isGreaterThanOrEqualTo(2);
            }
            assertThat(readLog(bootstrap, 60_000)).isEqualTo(Map.of(1L, sequence(60_000)));
        } finally {
            broker.close();
        }
    }

    /**
     * A broker that stops answering without closing its connections (paused here; wedged or cut off in life) must not
     * hold the producer's batches forever: after {@code request.timeout.ms} the producer drops the session and retries
     * on a new one, and the batch goes in once, whether or not the paused broker had appended it.
     */
    @Test
    void shouldDropASessionWhoseBrokerStopsAnsweringAndDeliverItsBatchesOnceOnANewOne() throws Exception {
        final int port = freePort();
        final String bootstrap = "127.0.0.1:" + port;
        try (BrokerProcess broker = BrokerProcess.start(dir.resolve("logs"), port)) {
            createTopic(bootstrap);
            try (IsthmusProducer producer = new IsthmusProducer(Map.of(
                    "bootstrap.servers", bootstrap,
                    "transport", "shm",
                    "acks", "all",
                    "request.timeout.ms", "2000",
                    "delivery.timeout.ms", "60000"))) {
                send(producer, 1, 0, 1_000);
                broker.signal("STOP");
                final Thread resume = Thread.ofVirtual().start(() -> {
                    try {
                        // Not a synchronisation: how long the broker stays paused, past the producer's 3 s
                        // (1.5 x request.timeout.ms) without an answer.
                        Thread.sleep(5_000);
                        broker.signal("CONT");
                    } catch (final Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                send(producer, 1, 1_000, 2_000);
                resume.join();
                assertThat(producer.shmTransport().connectionsLost())
                        .as("the session with the paused broker was dropped after request.timeout.ms")
                        .isGreaterThanOrEqualTo(1);
            }
            assertThat(readLog(bootstrap, 2_000)).isEqualTo(Map.of(1L, sequence(2_000)));
        }
    }

    @Test
    void shouldRefuseABadDoorbellWithAClearErrorAndKeepServing() throws Exception {
        try (Broker broker = EmbeddedBroker.start(dir)) {
            final String bootstrap = broker.bootstrapServers();
            createTopic(bootstrap);
            final String[] hostPort = bootstrap.split(":");
            final InetSocketAddress address = new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1]));
            try (ShmConnection connection = ShmConnection.open(address, "raw", 10_000, SecuritySettings.PLAINTEXT);
                    Arena arena = Arena.ofConfined()) {
                final ShmProduceAccessResponse access = connection.produceAccess(TOPIC, 0, 4, 4096, (short) -1, 30_000);
                assertThat(access.errorCode()).isEqualTo(ControlErrorCodes.NONE);
                final int stagingId = access.stagingId();
                final int slotBytes = access.slotBytes();
                final String stagingPath = access.detail();
                assertThat(access.slots()).isEqualTo(4);
                assertThat(slotBytes).isEqualTo(4096);
                final MemorySegment staging;
                try (FileChannel file =
                        FileChannel.open(Path.of(access.detail()), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                    staging = file.map(FileChannel.MapMode.READ_WRITE, 0, 4L * slotBytes, arena);
                }
                // Garbage with a plausible length: the broker copies, validates the copy, refuses it.
                staging.fill((byte) 7);
                staging.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 8, 200);
                assertThat(answer(connection, stagingId, 0).errorCode()).isEqualTo(ControlErrorCodes.CORRUPT_MESSAGE);
                // A length past the slot.
                staging.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 8, 1 << 20);
                final ShmProduceResponse pastSlot = answer(connection, stagingId, 0);
                assertThat(pastSlot.errorCode()).isEqualTo(ControlErrorCodes.CORRUPT_MESSAGE);
                assertThat(pastSlot.detail()).contains("staging slot");
                final ShmProduceResponse badSlot = answer(connection, stagingId, 4);
                assertThat(badSlot.errorCode()).isEqualTo(ControlErrorCodes.INVALID_REQUEST);
                assertThat(badSlot.detail()).contains("slot=4 slots=4");
                assertThat(answer(connection, stagingId + 100, 0).errorCode())
                        .isEqualTo(ControlErrorCodes.ACCESS_REVOKED);
                assertThat(connection
                                .produceAccess("no-such-topic", 0, 4, 4096, (short) -1, 30_000)
                                .errorCode())
                        .isEqualTo(ControlErrorCodes.UNKNOWN_TOPIC_OR_PARTITION);
                // Released: the staging file goes, and a doorbell naming it is refused.
                final Path stagingFile = Path.of(stagingPath);
                assertThat(connection.releaseProduce(TOPIC, 0).errorCode()).isEqualTo(ControlErrorCodes.NONE);
                assertThat(stagingFile).doesNotExist();
                assertThat(answer(connection, stagingId, 0).errorCode()).isEqualTo(ControlErrorCodes.ACCESS_REVOKED);
            }
            assertThat(broker.partitions()
                            .partition(PARTITION)
                            .orElseThrow()
                            .log()
                            .logEndOffset())
                    .as("nothing appended")
                    .isZero();
            // The broker goes on serving: a real producer's batches land.
            try (IsthmusProducer producer = shmProducer(bootstrap)) {
                send(producer, 1, 0, 1_000);
            }
            assertThat(readLog(bootstrap, 1_000)).isEqualTo(Map.of(1L, sequence(1_000)));
        }
    }

    @Test
    void shouldRefuseSharedMemoryProduceWhereTheBrokerServesNoneAndForTransactions() throws Exception {
        try (Broker broker = EmbeddedBroker.start(dir, "shm.enabled=false")) {
            assertThatThrownBy(() -> shmProducer(broker.bootstrapServers()))
                    .isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("shared-memory transport is not available")
                    .hasMessageContaining("shm.enabled=false");
            try (IsthmusProducer auto = new IsthmusProducer(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
                assertThat(auto.transport()).as("auto passes shared memory by").isNotEqualTo(Transport.SHM);
            }
        }
    }

    private static ShmProduceResponse answer(final ShmConnection connection, final int stagingId, final int slot) {
        final int id = connection.produce(stagingId, slot);
        final long deadline = System.nanoTime() + DEADLINE.toNanos();
        ShmProduceResponse answer;
        while ((answer = connection.pollProduced(id)) == null) {
            assertThat(System.nanoTime() - deadline).isNegative();
            connection.awaitAnswer(100);
        }
        return answer;
    }

    /** A {@link ShmProducerProcess} and the lines it prints. */
    private static final class ChildProducer implements AutoCloseable {
        private final Process process;
        private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        private final StringBuilder seen = new StringBuilder();

        private ChildProducer(final Process process) {
            this.process = process;
            final Thread reader = new Thread(() -> {
                try (BufferedReader output =
                        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = output.readLine()) != null) {
                        synchronized (seen) {
                            seen.append(line).append('\n');
                        }
                        lines.add(line);
                    }
                } catch (final java.io.IOException closed) {
                    // the child died
                }
                lines.add("exited");
            });
            reader.setDaemon(true);
            reader.start();
        }

        static ChildProducer start(final String bootstrap, final long tag, final long count) throws Exception {
            return new ChildProducer(new ProcessBuilder(
                            ProcessHandle.current().info().command().orElseThrow(),
                            "--enable-native-access=ALL-UNNAMED",
                            "-cp",
                            System.getProperty("java.class.path"),
                            ShmProducerProcess.class.getName(),
                            bootstrap,
                            TOPIC,
                            Long.toString(tag),
                            Long.toString(count))
                    .redirectErrorStream(true)
                    .start());
        }

        /** Waits until the child reports at least {@code records} acknowledged over shared memory; returns its count. */
        long awaitAcked(final long records) throws Exception {
            final long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (true) {
                final String line = lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                if (line == null || line.equals("exited")) {
                    synchronized (seen) {
                        throw new AssertionError("the producer process stopped acknowledging:\n" + seen);
                    }
                }
                if (line.startsWith("acked ")) {
                    assertThat(line).endsWith("transport=SHM");
                    final long acked = Long.parseLong(line.split(" ")[1]);
                    if (acked >= records) {
                        return acked;
                    }
                }
            }
        }

        String awaitDone() throws Exception {
            final long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (true) {
                final String line = lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                if (line == null || line.equals("exited")) {
                    synchronized (seen) {
                        throw new AssertionError("the producer process did not finish:\n" + seen);
                    }
                }
                if (line.startsWith("done")) {
                    return line;
                }
            }
        }

        void kill9() throws InterruptedException {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }

        @Override
        public void close() throws InterruptedException {
            kill9();
        }
    }
}
