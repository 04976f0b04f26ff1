package io.isthmus.e2e.rdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.broker.Broker;
import io.isthmus.client.admin.IsthmusAdmin;
import io.isthmus.client.config.Transport;
import io.isthmus.client.consumer.ConsumedRecord;
import io.isthmus.client.consumer.ConsumerBatch;
import io.isthmus.client.consumer.IsthmusConsumer;
import io.isthmus.client.producer.IsthmusProducer;
import io.isthmus.client.producer.ProducerConfig;
import io.isthmus.client.rdma.RdmaClientSettings;
import io.isthmus.client.rdma.RdmaConnection;
import io.isthmus.client.security.SecuritySettings;
import io.isthmus.e2e.EmbeddedBroker;
import io.isthmus.ffi.verbs.AccessFlags;
import io.isthmus.ffi.verbs.MemoryRegion;
import io.isthmus.ffi.verbs.WorkCompletions;
import io.isthmus.protocol.control.ProduceAccessRequest;
import io.isthmus.protocol.control.ProduceAccessResponse;
import io.isthmus.protocol.control.SharedProduceWordDescriptor;
import io.isthmus.protocol.record.HeaderList;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The isthmus producer and consumer over RDMA against an embedded broker with {@code rdma.enabled=true}, on a real
 * device: exclusive one-sided produce, one-sided consume with metadata slots, and kafka-clients over TCP reading the
 * same log. Segments are 64 KiB, so the producer rolls segments mid-stream and consumers cross sealed ones.
 */
@Tag("rdma")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RdmaEndToEndTest {
    private static final int SEGMENT_BYTES = 64 * 1024;
    private static final Duration DEADLINE = Duration.ofSeconds(120);

    private Path logDir;
    private Broker broker;

    /** One record as produced, to compare with what consumers see. */
    private record Sent(long offset, byte[] key, byte[] value, byte[] header) {}

    @BeforeAll
    void startBroker() throws Exception {
        logDir = Files.createTempDirectory("rdma-e2e");
        broker = EmbeddedBroker.start(
                logDir,
                "log.segment.bytes=" + SEGMENT_BYTES,
                "rdma.enabled=true",
                "rdma.device=" + GuestDevice.name(),
                "rdma.gid.index=" + GuestDevice.gidIndex(),
                "rdma.cq.size=1024",
                "rdma.max.connections=8",
                "rdma.produce.reservation.timeout.ms=500",
                "num.network.threads=1");
        assertThat(broker.rdma().unavailableReason()).isEmpty();
    }

    @AfterAll
    void stopBroker() throws Exception {
        if (broker != null) {
            broker.close();
        }
        try (Stream<Path> paths = Files.walk(logDir)) {
            for (final Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    private Map<String, Object> clientSettings(final String transport) {
        final Map<String, Object> settings = new HashMap<>();
        settings.put("bootstrap.servers", broker.bootstrapServers());
        settings.put("transport", transport);
        settings.put("rdma.device", GuestDevice.name());
        settings.put("rdma.gid.index", GuestDevice.gidIndex());
        return settings;
    }

    private void createTopic(final String topic) {
        try (IsthmusAdmin admin = new IsthmusAdmin(broker.bootstrapServers())) {
            admin.createTopic(topic, 1, (short) 1);
        }
    }

    private List<Sent> produce(final String topic, final int records) {
        final Map<String, Object> settings = clientSettings("rdma");
        settings.put(ProducerConfig.BATCH_SIZE, Integer.toString(8 * 1024));
        settings.put(ProducerConfig.LINGER_MS, "1");
        final List<CompletableFuture<io.isthmus.client.producer.RecordMetadata>> futures = new ArrayList<>();
        final List<Sent> sent = new ArrayList<>();
        try (IsthmusProducer producer = new IsthmusProducer(settings)) {
            assertThat(producer.transport()).isEqualTo(Transport.RDMA);
            for (int i = 0; i < records; i++) {
                final byte[] key = ("key-" + i).getBytes(StandardCharsets.UTF_8);
                final byte[] value = ("value-" + i + "-" + "x".repeat(i % 97)).getBytes(StandardCharsets.UTF_8);
                final byte[] header = ("h" + i).getBytes(StandardCharsets.UTF_8);
                final HeaderList headers = new HeaderList();
                headers.add("seq", header);
                futures.add(producer.sendAsync(topic, 0, IsthmusProducer.NOW, key, value, headers));
                sent.add(new Sent(-1, key, value, header));
            }
            producer.flush();
        }
        final List<Sent> acknowledged = new ArrayList<>();
        for (int i = 0; i < records; i++) {
            final long offset = futures.get(i).join().offset();
            final Sent s = sent.get(i);
            acknowledged.add(new Sent(offset, s.key(), s.value(), s.header()));
        }
        return acknowledged;
    }

    /** Consumes {@code count} records with the isthmus consumer over {@code transport}, copying them out. */
    private List<Sent> consumeIsthmus(final String topic, final int count, final String transport, final long from) {
        final List<Sent> received = new ArrayList<>();
        final Map<String, Object> settings = clientSettings(transport);
        settings.put("rdma.read.bytes", Integer.toString(32 * 1024));
        try (IsthmusConsumer consumer = new IsthmusConsumer(settings)) {
            assertThat(consumer.transport()).isEqualTo(Transport.forName(transport));
            final TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seek(tp, from);
            final long deadline = System.nanoTime() + DEADLINE.toNanos();
            MemorySegment kept = null;
            while (received.size() < count) {
                assertThat(System.nanoTime() - deadline)
                        .as("records after %s", DEADLINE)
                        .isNegative();
                try (ConsumerBatch batch = consumer.poll(Duration.ofMillis(200))) {
                    while (batch.next()) {
                        final ConsumedRecord r = batch.record();
                        final MemorySegment header = r.lastHeader("seq".getBytes(StandardCharsets.UTF_8));
                        received.add(new Sent(
                                r.offset(),
                                r.keyAsArray(),
                                r.valueAsArray(),
                                header == null ? null : header.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)));
                        kept = r.value();
                    }
                }
            }
            if (kept != null) {
                final MemorySegment afterClose = kept;
                assertThatThrownBy(() -> afterClose.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0))
                        .as("a value slice after its batch closed")
                        .isInstanceOf(IllegalStateException.class);
            }
            // Everything asked for is read: the lag against the high watermark the last fetch or slot READ reported
            // reaches zero (a READ is not atomic across the slot's words, so it may take one more poll to see it).
            final long lagDeadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!consumer.currentLag(tp).equals(java.util.OptionalLong.of(0)) && System.nanoTime() < lagDeadline) {
                consumer.poll(Duration.ofMillis(50)).close();
            }
            assertThat(consumer.currentLag(tp)).hasValue(0);
            if (consumer.transport() == Transport.RDMA) {
                assertThat(consumer.rdmaTransport().slotReads()).isPositive();
                assertThat(consumer.rdmaTransport().accessRequests())
                        .as("access asked again for each sealed segment crossed")
                        .isGreaterThan(1);
            }
        }
        return received;
    }

    private List<Sent> consumeKafkaClients(final String topic, final int count) {
        final Properties props = new Properties();
        props.put("bootstrap.servers", broker.bootstrapServers());
        props.put("key.deserializer", ByteArrayDeserializer.class.getName());
        props.put("value.deserializer", ByteArrayDeserializer.class.getName());
        props.put("enable.auto.commit", "false");
        final List<Sent> received = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            final TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            final long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (received.size() < count) {
                assertThat(System.nanoTime() - deadline).isNegative();
                for (final ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    final Header header = r.headers().lastHeader("seq");
                    received.add(new Sent(r.offset(), r.key(), r.value(), header == null ? null : header.value()));
                }
            }
        }
        return received;
    }

    private static void assertSame(final List<Sent> actual, final List<Sent> expected) {
        assertThat(actual).hasSameSizeAs(expected);
        for (int i = 0; i < expected.size(); i++) {
            final Sent a = actual.get(i);
            final Sent e = expected.get(i);
            assertThat(a.offset()).as("offset of record %d", i).isEqualTo(e.offset());
            assertThat(Arrays.equals(a.key(), e.key())
                            && Arrays.equals(a.value(), e.value())
                            && Arrays.equals(a.header(), e.header()))
                    .as("record %d byte-identical", i)
                    .isTrue();
        }
    }

    /**
     * read_committed over RDMA when the broker's aborted-transaction array fills: kafka-clients' transactional producer
     * aborts more transactions than the first array holds (so the consumer must follow the array to a larger one),
     * commits some, and leaves one open; the isthmus consumer over RDMA sees exactly the committed records, in order,
     * nothing past the open transaction until it commits.
     */
    @Test
    void shouldFollowTheAbortedTransactionArrayWhenItGrowsOverRdma() throws Exception {
        final String topic = "rdma-txn-many-aborts";
        createTopic(topic);
        final Properties props = new Properties();
        props.put("bootstrap.servers", broker.bootstrapServers());
        props.put("key.serializer", org.apache.kafka.common.serialization.StringSerializer.class.getName());
        props.put("value.serializer", org.apache.kafka.common.serialization.StringSerializer.class.getName());
        props.put("linger.ms", "0");
        final int aborts = 300;
        final List<String> committed = new ArrayList<>();
        final Map<String, Object> settings = clientSettings("rdma");
        settings.put("isolation.level", "read_committed");
        try (org.apache.kafka.clients.producer.KafkaProducer<String, String> open = kafkaTransactional(props, "open");
                org.apache.kafka.clients.producer.KafkaProducer<String, String> producer =
                        kafkaTransactional(props, "rounds");
                IsthmusConsumer consumer = new IsthmusConsumer(settings)) {
            assertThat(consumer.transport()).isEqualTo(Transport.RDMA);
            final TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seek(tp, 0);
            final List<String> seen = new ArrayList<>();
            // A few rounds first, read at once: the broker's array for the partition starts small, with the consumer.
            int round = 0;
            for (; round < 20; round++) {
                transactionRound(producer, topic, round, round % 16 == 0, committed);
            }
            seen.addAll(pollUntilQuiet(consumer, committed.size(), Duration.ofMillis(500)));
            // Then more aborted transactions than that array holds: the consumer must follow it to a larger one.
            for (; round < aborts + 20; round++) {
                transactionRound(producer, topic, round, round % 16 == 0 || round >= aborts, committed);
            }
            open.beginTransaction();
            open.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic, 0, "k", "held"))
                    .get();
            producer.beginTransaction();
            producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic, 0, "k", "after"))
                    .get();
            producer.commitTransaction();

            seen.addAll(pollUntilQuiet(consumer, committed.size() - seen.size(), Duration.ofSeconds(2)));
            assertThat(seen)
                    .as("committed records only, none at or past the open transaction")
                    .containsExactlyElementsOf(committed);
            assertThat(consumer.rdmaTransport().abortedArraysOutgrown())
                    .as("the consumer followed the aborted-transaction array when it grew")
                    .isPositive();
            assertThat(consumer.rdmaTransport().abortedReads()).isPositive();

            open.commitTransaction();
            assertThat(pollUntilQuiet(consumer, 2, Duration.ofSeconds(1))).containsExactly("held", "after");
        }
    }

    private static void transactionRound(
            final org.apache.kafka.clients.producer.KafkaProducer<String, String> producer,
            final String topic,
            final int round,
            final boolean commit,
            final List<String> committed) {
        producer.beginTransaction();
        producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic, 0, "k", "r" + round));
        producer.flush();
        if (commit) {
            producer.commitTransaction();
            committed.add("r" + round);
        } else {
            producer.abortTransaction();
        }
    }

    private static org.apache.kafka.clients.producer.KafkaProducer<String, String> kafkaTransactional(
            final Properties base, final String transactionalId) {
        final Properties props = new Properties();
        props.putAll(base);
        props.put("transactional.id", transactionalId);
        final org.apache.kafka.clients.producer.KafkaProducer<String, String> producer =
                new org.apache.kafka.clients.producer.KafkaProducer<>(props);
        producer.initTransactions();
        return producer;
    }

    /** Values polled until {@code expected} arrived (or the deadline), then a quiet {@code linger} more. */
    private static List<String> pollUntilQuiet(
            final IsthmusConsumer consumer, final int expected, final Duration linger) {
        final List<String> values = new ArrayList<>();
        final long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (values.size() < expected && System.nanoTime() < deadline) {
            drain(consumer, values, Duration.ofMillis(100));
        }
        final long quietUntil = System.nanoTime() + linger.toNanos();
        while (System.nanoTime() < quietUntil) {
            drain(consumer, values, Duration.ofMillis(100));
        }
        return values;
    }

    private static void drain(final IsthmusConsumer consumer, final List<String> values, final Duration timeout) {
        try (ConsumerBatch batch = consumer.poll(timeout)) {
            while (batch.next()) {
                values.add(new String(batch.record().valueAsArray(), StandardCharsets.UTF_8));
            }
        }
    }

    @Test
    void shouldProduceOverRdmaAndReadEveryRecordOnceInOrderOverRdmaAndOverKafkaClients() {
        final String topic = "rdma-e2e";
        createTopic(topic);
        final int records = 3000;

        final List<Sent> produced = produce(topic, records);

        for (int i = 0; i < records; i++) {
            assertThat(produced.get(i).offset())
                    .as("offset of acknowledged record %d", i)
                    .isEqualTo(i);
        }
        assertThat(broker.partitions()
                        .partition(new TopicPartition(topic, 0))
                        .orElseThrow()
                        .log()
                        .segments()
                        .size())
                .as("segments the producer rolled through")
                .isGreaterThan(2);
        assertSame(consumeIsthmus(topic, records, "rdma", 0), produced);
        assertSame(consumeKafkaClients(topic, records), produced);
        assertSame(consumeIsthmus(topic, records - 1500, "rdma", 1500), produced.subList(1500, records));
    }

    @Test
    void shouldTailAPartitionOverRdmaWhileAnRdmaProducerWritesIt() throws Exception {
        final String topic = "rdma-e2e-live";
        createTopic(topic);
        final int records = 2000;
        final CompletableFuture<List<Sent>> consumed =
                CompletableFuture.supplyAsync(() -> consumeIsthmus(topic, records, "rdma", 0));

        final List<Sent> produced = produce(topic, records);

        assertSame(consumed.get(DEADLINE.toSeconds(), TimeUnit.SECONDS), produced);
    }

    /** Sends {@code count} records keyed {@code name-i} in order; one first, then the rest after {@code start}. */
    private List<Long> produceTagged(
            final String topic, final String name, final String transport, final int count, final CyclicBarrier start)
            throws Exception {
        final Map<String, Object> settings = clientSettings(transport);
        settings.put(ProducerConfig.BATCH_SIZE, Integer.toString(4 * 1024));
        settings.put(ProducerConfig.LINGER_MS, "1");
        settings.put("rdma.produce.mode", "shared");
        final List<CompletableFuture<io.isthmus.client.producer.RecordMetadata>> futures = new ArrayList<>();
        try (IsthmusProducer producer = new IsthmusProducer(settings)) {
            assertThat(producer.transport()).isEqualTo(Transport.forName(transport));
            for (int i = 0; i < count; i++) {
                futures.add(producer.sendAsync(
                        topic,
                        0,
                        IsthmusProducer.NOW,
                        (name + "-" + i).getBytes(StandardCharsets.UTF_8),
                        ("v" + i + "x".repeat(i % 50)).getBytes(StandardCharsets.UTF_8),
                        new HeaderList()));
                if (i == 0) {
                    producer.flush(); // access asked for, connections made: from here on the three run together
                    if (start != null) {
                        start.await(60, TimeUnit.SECONDS);
                    }
                }
            }
            producer.flush();
        }
        final List<Long> offsets = new ArrayList<>(count);
        for (final CompletableFuture<io.isthmus.client.producer.RecordMetadata> future : futures) {
            offsets.add(future.join().offset());
        }
        return offsets;
    }

    /** Every record of every producer once, each producer's in the order it sent them. */
    private static void assertEachProducerOnceInOrder(
            final List<Sent> consumed, final List<String> producers, final int perProducer) {
        assertThat(consumed).hasSize(producers.size() * perProducer);
        final Map<String, Integer> next = new HashMap<>();
        for (int i = 0; i < consumed.size(); i++) {
            assertThat(consumed.get(i).offset()).isEqualTo(i);
            final String key = new String(consumed.get(i).key(), StandardCharsets.UTF_8);
            final String name = key.substring(0, key.lastIndexOf('-'));
            final int sequence = Integer.parseInt(key.substring(key.lastIndexOf('-') + 1));
            assertThat(sequence).as("next record of %s", name).isEqualTo(next.getOrDefault(name, 0));
            next.put(name, sequence + 1);
        }
        for (final String name : producers) {
            assertThat(next.get(name)).as("records of %s", name).isEqualTo(perProducer);
        }
    }

    @Test
    void shouldInterleaveTwoSharedRdmaProducersAndATcpProducerOnOnePartitionEachOnceInOrder() throws Exception {
        final String topic = "rdma-shared-e2e";
        createTopic(topic);
        final int perProducer = 1500;
        final List<String> names = List.of("rdma-a", "rdma-b", "tcp-c");
        final CyclicBarrier start = new CyclicBarrier(names.size());
        final ExecutorService pool = Executors.newFixedThreadPool(names.size());
        try {
            final List<Future<List<Long>>> producers = new ArrayList<>();
            for (final String name : names) {
                producers.add(pool.submit(
                        () -> produceTagged(topic, name, name.startsWith("tcp") ? "tcp" : "rdma", perProducer, start)));
            }
            final List<List<Long>> offsets = new ArrayList<>();
            for (final Future<List<Long>> producer : producers) {
                offsets.add(producer.get(DEADLINE.toSeconds(), TimeUnit.SECONDS));
            }
            for (int p = 0; p < offsets.size(); p++) {
                for (int q = 0; q < offsets.size(); q++) {
                    if (p != q) {
                        assertThat(offsets.get(p).getLast())
                                .as("%s still producing after %s started", names.get(p), names.get(q))
                                .isGreaterThan(offsets.get(q).get(1));
                    }
                }
            }
        } finally {
            pool.shutdownNow();
        }
        assertEachProducerOnceInOrder(consumeKafkaClients(topic, names.size() * perProducer), names, perProducer);
    }

    @Test
    void shouldRetryWritesRevokedBehindAReservationThatIsNeverWritten() throws Exception {
        final String topic = "rdma-shared-revoked";
        createTopic(topic);
        final var datapath = broker.rdma().datapath().orElseThrow();
        final long revocationsBefore = datapath.sharedRevocations();
        final String[] hostPort = broker.bootstrapServers().split(":");
        final RdmaClientSettings stalledSettings = new RdmaClientSettings(
                GuestDevice.name(),
                1,
                Integer.parseInt(GuestDevice.gidIndex()),
                RdmaClientSettings.DEFAULT_READ_BYTES,
                4,
                30_000,
                true,
                SecuritySettings.PLAINTEXT);
        try (RdmaConnection stalled = RdmaConnection.open(
                        new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])),
                        "stalled",
                        stalledSettings,
                        4,
                        8);
                Arena arena = Arena.ofConfined()) {
            final ProduceAccessResponse access =
                    stalled.produceAccess(topic, 0, ProduceAccessRequest.SHARED, -1, -1, (short) 1, 30_000, -1, -1);
            assertThat(access.errorCode()).isZero();
            final MemorySegment old = stalled.allocate(SharedProduceWordDescriptor.LENGTH);
            final MemoryRegion oldRegion = stalled.register(old, AccessFlags.LOCAL_WRITE);
            stalled.postFetchAndAdd(
                    7,
                    oldRegion,
                    0,
                    access.wordAddress(),
                    access.wordRkey(),
                    SharedProduceWordDescriptor.reservation(128));
            final WorkCompletions completion = WorkCompletions.allocate(arena, 1);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (stalled.pollSend(completion) == 0) {
                assertThat(System.nanoTime() - deadline).isNegative();
                Thread.onSpinWait();
            }
            assertThat(completion.isSuccess(0)).isTrue();
            // Reserved and never written: the producer's writes behind it are revoked, asked again and retried.

            final List<Long> offsets = produceTagged(topic, "retried", "rdma", 400, null);

            assertThat(offsets).isSorted();
            assertThat(datapath.sharedRevocations() - revocationsBefore).isEqualTo(1);
        }
        assertEachProducerOnceInOrder(consumeKafkaClients(topic, 400), List.of("retried"), 400);
    }

    private IsthmusProducer transactional(final String transactionalId) {
        final Map<String, Object> settings = clientSettings("tcp");
        settings.put(ProducerConfig.TRANSACTIONAL_ID, transactionalId);
        return new IsthmusProducer(settings);
    }

    private static void sendAndFlush(final IsthmusProducer producer, final String topic, final String... values) {
        for (final String value : values) {
            producer.send(topic, 0, IsthmusProducer.NOW, null, value.getBytes(StandardCharsets.UTF_8), null, null);
        }
        producer.flush();
    }

    /** Polls for up to {@code wait}, or until {@code until} values are there, adding every value read. */
    private static void pollValues(
            final IsthmusConsumer consumer, final List<String> values, final int until, final Duration wait) {
        final long deadline = System.nanoTime() + wait.toNanos();
        while (values.size() < until && System.nanoTime() < deadline) {
            try (ConsumerBatch batch = consumer.poll(Duration.ofMillis(100))) {
                for (final ConsumedRecord record : batch) {
                    values.add(record.valueAsString());
                }
            }
        }
    }

    /**
     * read_committed over RDMA: the consumer's readers stop at the last stable offset their slot carries, and the
     * aborted transactions they copy with one-sided READs make the record iterator skip an aborted transaction that
     * overlaps a committed one, as after a TCP fetch. Transactions are written over TCP (transactional produce over
     * RDMA is not supported); an open transaction holds the consumer back until it commits.
     */
    @Test
    void shouldReadOnlyCommittedTransactionsOverRdma() {
        final String topic = "rdma-txn";
        createTopic(topic);
        final Map<String, Object> settings = clientSettings("rdma");
        settings.put("isolation.level", "read_committed");
        final TopicPartition tp = new TopicPartition(topic, 0);
        try (IsthmusProducer a = transactional("rdma-txn-a");
                IsthmusProducer b = transactional("rdma-txn-b");
                IsthmusProducer plain = new IsthmusProducer(clientSettings("tcp"));
                IsthmusConsumer consumer = new IsthmusConsumer(settings)) {
            assertThat(consumer.transport()).isEqualTo(Transport.RDMA);
            a.initTransactions();
            b.initTransactions();
            a.beginTransaction();
            b.beginTransaction();
            sendAndFlush(a, topic, "a1-0", "a1-1");
            sendAndFlush(b, topic, "b1-0");
            sendAndFlush(plain, topic, "plain-0");
            sendAndFlush(a, topic, "a1-2");
            a.commitTransaction();
            sendAndFlush(b, topic, "b1-1");
            b.abortTransaction();
            b.beginTransaction();
            sendAndFlush(b, topic, "b2-0");
            b.commitTransaction();
            a.beginTransaction();
            sendAndFlush(a, topic, "open-0");

            consumer.assign(List.of(tp));
            consumer.seek(tp, 0);
            final List<String> values = new ArrayList<>();
            pollValues(consumer, values, 5, DEADLINE);
            assertThat(values).containsExactly("a1-0", "a1-1", "plain-0", "a1-2", "b2-0");
            pollValues(consumer, values, 6, Duration.ofSeconds(2));
            assertThat(values)
                    .as("the open transaction holds the consumer back")
                    .hasSize(5);
            assertThat(consumer.rdmaTransport().slotReads()).isPositive();

            a.commitTransaction();
            pollValues(consumer, values, 6, DEADLINE);
            assertThat(values).containsExactly("a1-0", "a1-1", "plain-0", "a1-2", "b2-0", "open-0");
        }
    }
}
