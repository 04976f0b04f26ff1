package io.isthmus.e2e.shm;

import static io.isthmus.e2e.LoopbackPorts.freePort;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.broker.Broker;
import io.isthmus.client.admin.IsthmusAdmin;
import io.isthmus.client.config.Transport;
import io.isthmus.client.consumer.ConsumedRecord;
import io.isthmus.client.consumer.IsthmusConsumer;
import io.isthmus.client.network.ControlChannel;
import io.isthmus.client.producer.IsthmusProducer;
import io.isthmus.client.security.SecuritySettings;
import io.isthmus.client.shm.ShmBrokerUnreachableException;
import io.isthmus.client.shm.ShmTransportException;
import io.isthmus.e2e.BrokerProcess;
import io.isthmus.e2e.EmbeddedBroker;
import io.isthmus.protocol.control.ControlApiKeys;
import io.isthmus.protocol.control.ControlErrorCodes;
import io.isthmus.protocol.control.ShmAttachRequest;
import io.isthmus.protocol.control.ShmAttachResponse;
import io.isthmus.protocol.control.ShmDirectoryLayout;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shared-memory datapath ({@code transport=shm}) end to end: consumers that map the broker's segment files and
 * metadata slots read-only, against a broker in this JVM or in a child process, across segment rolls, retention, a
 * broker killed with {@code kill -9} and restarted, a consumer process killed while it holds access, and clients that
 * cannot prove they may read the broker's directory. Each record's value starts with its sequence number, so a record
 * read twice, skipped or read from recycled bytes shows.
 */
class ShmEndToEndTest {
    private static final String TOPIC = "shm";
    private static final TopicPartition PARTITION = new TopicPartition(TOPIC, 0);
    private static final int VALUE_SIZE = 100;
    private static final Duration DEADLINE = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    /** Sends records {@code from} until {@code to} (exclusive), each value starting with its sequence number. */
    private static void produce(final String bootstrap, final long from, final long to) {
        try (IsthmusProducer producer =
                        new IsthmusProducer(Map.of("bootstrap.servers", bootstrap, "transport", "tcp", "acks", "all"));
                Arena arena = Arena.ofConfined()) {
            final MemorySegment value = arena.allocate(VALUE_SIZE);
            for (long i = from; i < to; i++) {
                value.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, i);
                producer.send(TOPIC, 0, IsthmusProducer.NOW, null, value, null, null);
            }
            producer.flush();
        }
    }

    private static IsthmusConsumer shmConsumer(final String bootstrap, final String... settings) {
        final Map<String, Object> config = new HashMap<>();
        config.put("bootstrap.servers", bootstrap);
        config.put("transport", "shm");
        for (int i = 0; i < settings.length; i += 2) {
            config.put(settings[i], settings[i + 1]);
        }
        final IsthmusConsumer consumer = new IsthmusConsumer(config);
        consumer.assign(List.of(PARTITION));
        consumer.seek(PARTITION, 0);
        return consumer;
    }

    /** What a consumer read: offsets and the sequence number each value carries. */
    private static final class Reads {
        final List<Long> offsets = new ArrayList<>();
        final List<Long> sequences = new ArrayList<>();

        void add(final ConsumedRecord record) {
            offsets.add(record.offset());
            sequences.add(record.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, record.valueOffset()));
        }

        long last() {
            return offsets.isEmpty() ? -1 : offsets.getLast();
        }
    }

    private static void readUntil(final IsthmusConsumer consumer, final Reads reads, final long lastOffset) {
        readUntil(consumer, reads, lastOffset, 10_000);
    }

    private static void readUntil(
            final IsthmusConsumer consumer, final Reads reads, final long lastOffset, final int recordsPerPoll) {
        final long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (reads.last() < lastOffset) {
            assertThat(System.nanoTime() - deadline)
                    .as("offset %d read within %s, got to %d", lastOffset, DEADLINE, reads.last())
                    .isNegative();
            consumer.poll(reads::add, recordsPerPoll, Duration.ofMillis(100));
        }
    }

    private static void createTopic(final String bootstrap) {
        try (IsthmusAdmin admin = new IsthmusAdmin(bootstrap)) {
            admin.createTopic(TOPIC, 1, (short) 1);
        }
    }

    @Test
    void shouldReadABrokerProcessAcrossSegmentRollsAndTwoKill9RestartsExactlyOnceInOrder() throws Exception {
        final int port = freePort();
        final String bootstrap = "127.0.0.1:" + port;
        final Path logs = dir.resolve("logs");
        final String segments = "log.segment.bytes=" + (1024 * 1024);
        BrokerProcess broker = BrokerProcess.start(logs, port, segments);
        try {
            createTopic(bootstrap);
            produce(bootstrap, 0, 30_000);
            final Reads reads = new Reads();
            try (IsthmusConsumer consumer = shmConsumer(bootstrap)) {
                assertThat(consumer.transport()).isEqualTo(Transport.SHM);
                readUntil(consumer, reads, 19_999);
                long produced = 30_000;
                for (int restart = 0; restart < 2; restart++) {
                    final long lost = consumer.shmTransport().sessionsLost();
                    broker.kill9();
                    // Polls while the broker is down find nothing new and fail nothing; they notice the control
                    // connection closed (nobody marks the slot file of a killed broker until it restarts).
                    for (int i = 0; i < 30; i++) {
                        consumer.poll(reads::add, 10_000, Duration.ofMillis(10));
                    }
                    assertThat(consumer.shmTransport().sessionsLost())
                            .as("the session to the killed broker, found lost")
                            .isGreaterThan(lost);
                    broker = BrokerProcess.start(logs, port, segments);
                    produce(bootstrap, produced, produced + 20_000);
                    produced += 20_000;
                    readUntil(consumer, reads, produced - 1);
                }
                assertThat(consumer.transport()).isEqualTo(Transport.SHM);
                assertThat(consumer.shmTransport().sessionsLost())
                        .as("sessions lost to the restarts")
                        .isGreaterThanOrEqualTo(2);
                assertThat(consumer.shmTransport().accessRequests())
                        .as("at least one access per 1 MiB segment")
                        .isGreaterThan(7);
                final List<Long> expected = new ArrayList<>();
                for (long i = 0; i < produced; i++) {
                    expected.add(i);
                }
                assertThat(reads.offsets).as("each offset once, in order").isEqualTo(expected);
                assertThat(reads.sequences).as("each value is its offset's").isEqualTo(expected);
            }
        } finally {
            broker.close();
        }
    }

    @Test
    void shouldReadMappedBytesUntilRetentionRevokesAccessThenResetToTheNewLogStart() throws Exception {
        try (Broker broker = EmbeddedBroker.start(
                dir,
                "log.segment.bytes=" + (1024 * 1024),
                "log.retention.bytes=" + (3 * 1024 * 1024),
                "log.retention.check.interval.ms=100")) {
            final String bootstrap = broker.bootstrapServers();
            createTopic(bootstrap);
            produce(bootstrap, 0, 10_000);
            final Reads reads = new Reads();
            try (IsthmusConsumer consumer =
                    shmConsumer(bootstrap, "fetch.max.bytes", "65536", "auto.offset.reset", "earliest")) {
                // A few records of the first segment: the rest of what the first fetch handed out stays mapped.
                readUntil(consumer, reads, 100, 50);
                // Far past log.retention.bytes: the segment the consumer maps is deleted under it.
                produce(bootstrap, 10_000, 80_000);
                final long deadline = System.nanoTime() + DEADLINE.toNanos();
                while (broker.shm().revokedGrants() == 0) {
                    assertThat(System.nanoTime() - deadline).isNegative();
                    Thread.sleep(20);
                }
                readUntil(consumer, reads, 79_999, 50);
            }
            assertThat(broker.shm().revokedGrants()).isPositive();
            assertThat(reads.offsets.get(150))
                    .as("read from the deleted segment's mapping")
                    .isEqualTo(150);
            for (int i = 1; i < reads.offsets.size(); i++) {
                assertThat(reads.offsets.get(i))
                        .as("offsets only move forward")
                        .isGreaterThan(reads.offsets.get(i - 1));
            }
            assertThat(reads.sequences).as("no recycled or foreign bytes").isEqualTo(reads.offsets);
            assertThat(reads.offsets.size()).as("retention took some").isLessThan(80_000);
            final long closedBy = System.nanoTime() + DEADLINE.toNanos();
            while (broker.shm().grantCount() > 0) {
                // The broker learns of the closed connection on its event loop.
                assertThat(System.nanoTime() - closedBy)
                        .as("grants after the consumer closed")
                        .isNegative();
                Thread.sleep(10);
            }
        }
    }

    @Test
    void shouldEndTheSessionOfAConsumerProcessKilledWhileItHoldsAccess() throws Exception {
        try (Broker broker = EmbeddedBroker.start(dir, "log.segment.bytes=" + (1024 * 1024))) {
            final String bootstrap = broker.bootstrapServers();
            createTopic(bootstrap);
            produce(bootstrap, 0, 5_000);
            final Process child = new ProcessBuilder(
                            ProcessHandle.current().info().command().orElseThrow(),
                            "--enable-native-access=ALL-UNNAMED",
                            "-cp",
                            System.getProperty("java.class.path"),
                            ShmConsumerProcess.class.getName(),
                            bootstrap,
                            TOPIC)
                    .redirectErrorStream(true)
                    .start();
            try {
                final CompletableFuture<String> reading = new CompletableFuture<>();
                final StringBuilder seen = new StringBuilder();
                final Thread output = new Thread(() -> {
                    try (BufferedReader lines =
                            new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                        String line;
                        while ((line = lines.readLine()) != null) {
                            synchronized (seen) {
                                seen.append(line).append('\n');
                            }
                            if (line.startsWith("reading")) {
                                reading.complete(line);
                            }
                        }
                    } catch (final java.io.IOException closed) {
                        // the child died
                    }
                    reading.completeExceptionally(new IllegalStateException("consumer exited"));
                });
                output.setDaemon(true);
                output.start();
                try {
                    assertThat(reading.get(60, TimeUnit.SECONDS)).isEqualTo("reading transport=SHM");
                } catch (final Exception e) {
                    synchronized (seen) {
                        throw new AssertionError("the consumer process did not read: " + e + "\n" + seen, e);
                    }
                }
                assertThat(broker.shm().sessionCount()).isEqualTo(1);
                assertThat(broker.shm().grantCount()).isEqualTo(1);

                child.destroyForcibly();
                child.waitFor(30, TimeUnit.SECONDS);

                final long deadline = System.nanoTime() + DEADLINE.toNanos();
                while (broker.shm().sessionCount() > 0 || broker.shm().grantCount() > 0) {
                    assertThat(System.nanoTime() - deadline)
                            .as("session of the killed consumer ended")
                            .isNegative();
                    Thread.sleep(20);
                }
            } finally {
                child.destroyForcibly();
            }
            // Its range and lease went back: another consumer reads everything.
            final Reads reads = new Reads();
            try (IsthmusConsumer consumer = shmConsumer(bootstrap)) {
                readUntil(consumer, reads, 4_999);
            }
            assertThat(reads.sequences).hasSize(5_000);
        }
    }

    /**
     * An interrupted thread is not a lost broker. Taken for one, a shared-memory reader attached again every 100 ms for
     * as long as the flag stayed set, each attempt ending at once, and its polls returned nothing without a word (a
     * Spark task reading so would wait out its two-minute poll timeout).
     */
    @Test
    void shouldAnswerAnInterruptedThreadWithInterruptExceptionAndReadOnOnceItIsCleared() throws Exception {
        try (Broker broker = EmbeddedBroker.start(dir)) {
            final String bootstrap = broker.bootstrapServers();
            createTopic(bootstrap);
            produce(bootstrap, 0, 1_000);
            final String[] hostPort = bootstrap.split(":");
            final InetSocketAddress address = new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1]));
            try {
                Thread.currentThread().interrupt();
                assertThatThrownBy(() -> ControlChannel.open(
                                address,
                                "test",
                                10_000,
                                SecuritySettings.PLAINTEXT,
                                ShmBrokerUnreachableException::new,
                                ShmTransportException::new))
                        .as("a control connection opened on an interrupted thread")
                        .isInstanceOf(InterruptException.class);
                assertThat(Thread.currentThread().isInterrupted())
                        .as("the flag stays set")
                        .isTrue();
            } finally {
                Thread.interrupted();
            }
            final Reads reads = new Reads();
            try (IsthmusConsumer consumer = shmConsumer(bootstrap)) {
                readUntil(consumer, reads, 499);
                Thread.currentThread().interrupt();
                try {
                    assertThatThrownBy(() -> consumer.poll(reads::add, 100, Duration.ofSeconds(1)))
                            .isInstanceOf(InterruptException.class);
                    assertThat(Thread.currentThread().isInterrupted()).isTrue();
                } finally {
                    Thread.interrupted();
                }
                readUntil(consumer, reads, 999);
            }
            assertThat(reads.offsets).hasSize(1_000);
            for (int i = 0; i < 1_000; i++) {
                assertThat(reads.offsets.get(i)).isEqualTo(i);
            }
        }
    }

    @Test
    void shouldCostTheBrokerNoRequestForAHundredThousandEmptyPolls() throws Exception {
        try (Broker broker = EmbeddedBroker.start(dir)) {
            final String bootstrap = broker.bootstrapServers();
            createTopic(bootstrap);
            produce(bootstrap, 0, 1_000);
            final Reads reads = new Reads();
            try (IsthmusConsumer consumer = shmConsumer(bootstrap)) {
                readUntil(consumer, reads, 999);
                final long requests = broker.shm().controlHandler().invocations();
                final long loads = consumer.shmTransport().slotLoads();
                for (int i = 0; i < 100_000; i++) {
                    assertThat(consumer.poll(reads::add, 100, Duration.ZERO)).isZero();
                }
                assertThat(broker.shm().controlHandler().invocations())
                        .as("control requests over 100,000 empty polls")
                        .isEqualTo(requests);
                assertThat(consumer.shmTransport().slotLoads() - loads).isGreaterThanOrEqualTo(100_000);
                produce(bootstrap, 1_000, 1_001);
                readUntil(consumer, reads, 1_000);
            }
        }
    }

    @Test
    void shouldRefuseAClientThatCannotReadTheBrokersToken() throws Exception {
        try (Broker broker = EmbeddedBroker.start(dir)) {
            final String bootstrap = broker.bootstrapServers();
            createTopic(bootstrap);
            final String[] hostPort = bootstrap.split(":");
            final InetSocketAddress address = new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1]));
            try (ControlChannel channel = ControlChannel.open(
                    address,
                    "test",
                    10_000,
                    SecuritySettings.PLAINTEXT,
                    ShmBrokerUnreachableException::new,
                    ShmTransportException::new)) {
                final byte[] guess = new byte[ShmDirectoryLayout.TOKEN_LENGTH];
                guess[0] = 42;
                final ShmAttachRequest request = new ShmAttachRequest()
                        .wrapForEncode(channel.requestFrame(), channel.requestBodyOffset())
                        .token(guess);
                final ShmAttachResponse answer =
                        channel.call(ControlApiKeys.SHM_ATTACH, request, new ShmAttachResponse());
                assertThat(answer.errorCode()).isEqualTo(ControlErrorCodes.SHM_TOKEN_MISMATCH);
            }
            assertThat(broker.shm().sessionCount()).isZero();

            // A client that cannot read the token (another host, another OS user) is refused with the reason.
            final Path token = dir.resolve(".isthmus-shm").resolve(ShmDirectoryLayout.TOKEN_FILE);
            assertThat(Files.getPosixFilePermissions(token).toString()).isEqualTo("[OWNER_READ, OWNER_WRITE]");
            Files.move(token, token.resolveSibling("moved-away"));
            assertThatThrownBy(() -> shmConsumer(bootstrap))
                    .isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("shared-memory transport is not available")
                    .hasMessageContaining("cannot read the broker's shared-memory token");
            try (IsthmusConsumer auto = new IsthmusConsumer(Map.of("bootstrap.servers", bootstrap))) {
                assertThat(auto.transport()).as("auto passes shared memory by").isNotEqualTo(Transport.SHM);
            }
        }
    }

    @Test
    void shouldRefuseShmOnABrokerThatServesNone() throws Exception {
        try (Broker broker = EmbeddedBroker.start(dir.resolve("off"), "shm.enabled=false")) {
            assertThatThrownBy(() -> shmConsumer(broker.bootstrapServers()))
                    .isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("shm.enabled=false");
            try (IsthmusConsumer auto = new IsthmusConsumer(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
                assertThat(auto.transport()).isEqualTo(Transport.TCP);
            }
        }
    }

    /**
     * Sends records {@code from} until {@code to} in one transaction of {@code producer} (kafka-clients'), committed or
     * aborted after every record reached the log, each value starting with its sequence number as {@link Reads} reads
     * it.
     */
    private static void transaction(
            final KafkaProducer<byte[], byte[]> producer, final long from, final long to, final boolean commit) {
        producer.beginTransaction();
        for (long i = from; i < to; i++) {
            final byte[] value = new byte[VALUE_SIZE];
            ByteBuffer.wrap(value).order(ByteOrder.nativeOrder()).putLong(i);
            producer.send(new ProducerRecord<>(TOPIC, 0, null, value));
        }
        if (commit) {
            producer.commitTransaction();
        } else {
            producer.flush(); // in the log before the abort: read_committed must skip them
            producer.abortTransaction();
        }
    }

    private static KafkaProducer<byte[], byte[]> transactionalProducer(final String bootstrap) {
        final Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "shm-txn");
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        return new KafkaProducer<>(config);
    }

    @Test
    void shouldHandReadCommittedOnlyCommittedTransactionsAndHoldBackAnOpenOne() throws Exception {
        try (Broker broker = EmbeddedBroker.start(dir, "log.segment.bytes=" + (256 * 1024))) {
            final String bootstrap = broker.bootstrapServers();
            createTopic(bootstrap);
            final List<Long> committed = new ArrayList<>();
            try (KafkaProducer<byte[], byte[]> producer = transactionalProducer(bootstrap)) {
                producer.initTransactions();
                final Reads reads = new Reads();
                try (IsthmusConsumer consumer = shmConsumer(bootstrap, "isolation.level", "read_committed")) {
                    assertThat(consumer.transport()).isEqualTo(Transport.SHM);
                    final long deadline = System.nanoTime() + DEADLINE.toNanos();
                    // Two halves, read in between: the reader holds the broker's first array (256 entries) when the
                    // second half's aborted transactions outgrow it.
                    long next = 0;
                    for (int half = 0; half < 2; half++) {
                        for (int t = 0; t < 300; t++) {
                            final boolean commit = t % 2 == 0;
                            transaction(producer, next, next + 10, commit);
                            for (long i = next; commit && i < next + 10; i++) {
                                committed.add(i);
                            }
                            next += 10;
                        }
                        while (reads.sequences.size() < committed.size()) {
                            assertThat(System.nanoTime() - deadline).isNegative();
                            consumer.poll(reads::add, 10_000, Duration.ofMillis(100));
                        }
                    }
                    assertThat(reads.sequences)
                            .as("committed records only, in order")
                            .isEqualTo(committed);
                    assertThat(consumer.shmTransport().abortedArraysOutgrown())
                            .as("the reader's array outgrown and replaced")
                            .isPositive();

                    // An open transaction holds read_committed back, however long it stays open.
                    producer.beginTransaction();
                    for (long i = next; i < next + 20; i++) {
                        final byte[] value = new byte[VALUE_SIZE];
                        ByteBuffer.wrap(value).order(ByteOrder.nativeOrder()).putLong(i);
                        producer.send(new ProducerRecord<>(TOPIC, 0, null, value));
                    }
                    producer.flush();
                    for (int i = 0; i < 20; i++) {
                        assertThat(consumer.poll(reads::add, 10_000, Duration.ofMillis(10)))
                                .as("records of an open transaction")
                                .isZero();
                    }
                    producer.commitTransaction();
                    while (reads.sequences.size() < committed.size() + 20) {
                        assertThat(System.nanoTime() - deadline).isNegative();
                        consumer.poll(reads::add, 10_000, Duration.ofMillis(100));
                    }
                    assertThat(reads.sequences.subList(committed.size(), committed.size() + 20))
                            .first()
                            .isEqualTo(next);
                }
            }
            try (IsthmusConsumer uncommitted = shmConsumer(bootstrap)) {
                final Reads all = new Reads();
                // 600 transactions of 10 records and a marker each, then the one committed late.
                readUntil(uncommitted, all, 6_600 + 19);
                assertThat(all.sequences)
                        .as("read_uncommitted sees aborted records too")
                        .hasSize(6_000 + 20);
            }
        }
    }
}
