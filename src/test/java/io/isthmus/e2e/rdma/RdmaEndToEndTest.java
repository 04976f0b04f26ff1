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
import io.isthmus.client.record.HeaderList;
import io.isthmus.e2e.EmbeddedBroker;
import java.lang.foreign.MemorySegment;
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
                "rdma.device=" + env("ISTHMUS_RDMA_DEVICE", "rxe0"),
                "rdma.gid.index=" + env("ISTHMUS_RDMA_GID_INDEX", "1"),
                "rdma.cq.size=1024",
                "rdma.max.connections=8",
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

    private static String env(final String name, final String fallback) {
        final String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    private Map<String, Object> clientSettings(final String transport) {
        final Map<String, Object> settings = new HashMap<>();
        settings.put("bootstrap.servers", broker.bootstrapServers());
        settings.put("transport", transport);
        settings.put("rdma.device", env("ISTHMUS_RDMA_DEVICE", "rxe0"));
        settings.put("rdma.gid.index", env("ISTHMUS_RDMA_GID_INDEX", "1"));
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
}
