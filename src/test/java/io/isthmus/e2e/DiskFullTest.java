package io.isthmus.e2e;

import static io.isthmus.e2e.LoopbackPorts.freePort;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker whose log directory fills up, on a real (small) file system: appends get KAFKA_STORAGE_ERROR with nothing
 * written, the broker keeps serving, every acknowledged record reads back, and appends work again once a deleted topic
 * gives space back, a batch an idempotent producer kept retrying through the full disk included. Segments are sparse files written through mappings, so without the reservations this is a SIGBUS
 * that ends the broker.
 */
class DiskFullTest {
    private static final int FILE_SYSTEM_MB = 24;

    @TempDir
    Path dir;

    @Test
    void aFullDiskRefusesAppendsKeepsServingAndRecoversWhenSpaceIsFreed() throws Exception {
        assumeThat(namespacesWork())
                .as("unshare -rm (a user and mount namespace for the small tmpfs) works on this machine")
                .isTrue();
        final Path mountPoint = Files.createDirectories(dir.resolve("small"));
        final int port = freePort();
        try (BrokerProcess broker = BrokerProcess.startOnSmallFileSystem(
                mountPoint,
                FILE_SYSTEM_MB,
                port,
                "log.segment.bytes=" + (4 << 20),
                "log.index.size.max.bytes=65536",
                "isthmus.log.pretouch.bytes=1048576",
                "transaction.state.log.segment.bytes=1048576")) {
            final String bootstrap = "127.0.0.1:" + port;
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
                admin.createTopics(List.of(new NewTopic("filler", 1, (short) 1), new NewTopic("kept", 1, (short) 1)))
                        .all()
                        .get();
            }
            final Map<Long, String> filler = produceUntilFull(bootstrap, "filler", 6 << 20);
            assertThat(filler).as("the filler took its 6 MiB").hasSizeGreaterThan(5_000);

            final Map<Long, String> kept = produceUntilFull(bootstrap, "kept", Integer.MAX_VALUE);
            assertThat(kept).as("records acknowledged before the disk filled").isNotEmpty();
            assertThat(broker.isAlive()).as("the broker survived the full disk").isTrue();
            assertThat(readBack(bootstrap, "kept", kept.size())).isEqualTo(kept);

            // An idempotent producer that keeps retrying through the full disk: its batch was checked, then refused.
            try (KafkaProducer<String, String> patient = idempotentProducer(bootstrap)) {
                final java.util.concurrent.Future<RecordMetadata> waiting =
                        patient.send(new ProducerRecord<>("kept", "waiting"));
                // Refused at least once (KAFKA_STORAGE_ERROR is retriable), so the retry is what space coming back
                // meets.
                final long refusedBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (retries(patient) == 0 && System.nanoTime() < refusedBy) {
                    Thread.sleep(20);
                }
                assertThat(retries(patient)).as("retries of the refused batch").isPositive();
                assertThat(waiting.isDone())
                        .as("refused while the disk is full")
                        .isFalse();

                try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
                    admin.deleteTopics(List.of("filler")).all().get();
                }
                assertThat(waiting.get(30, TimeUnit.SECONDS).offset())
                        .as("the retried batch, appended once space came back, right after the last acknowledged")
                        .isEqualTo(kept.size());
            }
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            RecordMetadata after = null;
            while (after == null && System.nanoTime() < deadline) {
                try (KafkaProducer<String, String> producer = producer(bootstrap)) {
                    after = producer.send(new ProducerRecord<>("kept", "after")).get();
                } catch (final ExecutionException stillFull) {
                    Thread.sleep(200);
                }
            }
            assertThat(after)
                    .as("an append once the deleted topic gave its space back")
                    .isNotNull();
            assertThat(after.offset()).as("right after the retried record").isEqualTo(kept.size() + 1);
        }
    }

    /**
     * Sends 1 KiB records, 256 at a time, until {@code bytes} are acknowledged or the broker answers
     * KAFKA_STORAGE_ERROR; returns what was acknowledged, by offset.
     */
    private static Map<Long, String> produceUntilFull(final String bootstrap, final String topic, final long bytes)
            throws Exception {
        final Map<Long, String> acknowledged = new HashMap<>();
        final String padding = "x".repeat(1000);
        try (KafkaProducer<String, String> producer = producer(bootstrap)) {
            long sent = 0;
            while (sent < bytes) {
                final List<String> values = new java.util.ArrayList<>();
                final List<java.util.concurrent.Future<RecordMetadata>> sends = new java.util.ArrayList<>();
                for (int i = 0; i < 256 && sent < bytes; i++, sent += 1024) {
                    final String value = sent + "-" + padding;
                    values.add(value);
                    sends.add(producer.send(new ProducerRecord<>(topic, value)));
                }
                boolean full = false;
                for (int i = 0; i < sends.size(); i++) {
                    try {
                        acknowledged.put(sends.get(i).get().offset(), values.get(i));
                    } catch (final ExecutionException e) {
                        assertThat(e.getCause()).isInstanceOf(KafkaStorageException.class);
                        full = true;
                    }
                }
                if (full) {
                    return acknowledged;
                }
            }
        }
        return acknowledged;
    }

    private static KafkaProducer<String, String> producer(final String bootstrap) {
        final Properties props = new Properties();
        props.put("bootstrap.servers", bootstrap);
        props.put("acks", "1");
        props.put("retries", "0");
        props.put("enable.idempotence", "false");
        props.put("key.serializer", StringSerializer.class.getName());
        props.put("value.serializer", StringSerializer.class.getName());
        return new KafkaProducer<>(props);
    }

    /** How many times {@code producer} sent a batch again (kafka-clients' {@code record-retry-total}). */
    private static double retries(final KafkaProducer<?, ?> producer) {
        return producer.metrics().entrySet().stream()
                .filter(m -> m.getKey().group().equals("producer-metrics")
                        && m.getKey().name().equals("record-retry-total"))
                .mapToDouble(m -> ((Number) m.getValue().metricValue()).doubleValue())
                .sum();
    }

    /** kafka-clients' defaults: idempotent, acks=all, retrying until its delivery timeout. */
    private static KafkaProducer<String, String> idempotentProducer(final String bootstrap) {
        final Properties props = new Properties();
        props.put("bootstrap.servers", bootstrap);
        props.put("delivery.timeout.ms", "120000");
        props.put("key.serializer", StringSerializer.class.getName());
        props.put("value.serializer", StringSerializer.class.getName());
        return new KafkaProducer<>(props);
    }

    private static Map<Long, String> readBack(final String bootstrap, final String topic, final int count) {
        final Properties props = new Properties();
        props.put("bootstrap.servers", bootstrap);
        props.put("key.deserializer", StringDeserializer.class.getName());
        props.put("value.deserializer", StringDeserializer.class.getName());
        final Map<Long, String> read = new HashMap<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            final TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (read.size() < count && System.nanoTime() < deadline) {
                for (final ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    read.put(record.offset(), record.value());
                }
            }
        }
        return read;
    }

    private static boolean namespacesWork() {
        try {
            final Process probe = new ProcessBuilder("unshare", "-rm", "true")
                    .redirectErrorStream(true)
                    .start();
            return probe.waitFor(10, TimeUnit.SECONDS) && probe.exitValue() == 0;
        } catch (final Exception e) {
            return false;
        }
    }
}
