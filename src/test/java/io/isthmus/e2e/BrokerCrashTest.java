package io.isthmus.e2e;

import static io.isthmus.e2e.LoopbackPorts.freePort;
import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.broker.log.LogFileNames;
import io.isthmus.client.producer.IsthmusProducer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of the broker while an idempotent producer writes with acks=all: after restarts, every
 * acknowledged record is present exactly once, and retries of batches the dead broker had already appended
 * are recognised as duplicates (producer state is rebuilt from the log).
 */
class BrokerCrashTest {
    private static final int RECORDS = 30_000;
    private static final int PARTITIONS = 2;
    private static final int CRASHES = 2;

    /** One idempotent acks=all producer, whichever client library: sends, reports acks, flushes. */
    private interface AckingProducer extends AutoCloseable {
        void send(String key, String value, BiConsumer<String, Exception> onAck);

        void flush();

        @Override
        void close();
    }

    @Test
    void shouldKeepEveryRecordKafkaClientsAcknowledgedExactlyOnceAcrossKill9(@TempDir final Path dir) throws Exception {
        produceThroughCrashes(dir, bootstrap -> {
            final KafkaProducer<String, String> producer = producer(bootstrap);
            return new AckingProducer() {
                @Override
                public void send(final String key, final String value, final BiConsumer<String, Exception> onAck) {
                    producer.send(
                            new ProducerRecord<>("crash", key, value), (metadata, error) -> onAck.accept(value, error));
                }

                @Override
                public void flush() {
                    producer.flush();
                }

                @Override
                public void close() {
                    producer.close();
                }
            };
        });
    }

    @Test
    void shouldKeepEveryRecordTheIsthmusProducerAcknowledgedExactlyOnceAcrossKill9(@TempDir final Path dir)
            throws Exception {
        produceThroughCrashes(dir, bootstrap -> {
            final IsthmusProducer producer = new IsthmusProducer(Map.of(
                    "bootstrap.servers", bootstrap,
                    "linger.ms", "2",
                    "request.timeout.ms", "5000",
                    "retry.backoff.ms", "50",
                    "delivery.timeout.ms", "120000"));
            return new AckingProducer() {
                @Override
                public void send(final String key, final String value, final BiConsumer<String, Exception> onAck) {
                    producer.send(
                            "crash",
                            IsthmusProducer.ANY_PARTITION,
                            IsthmusProducer.NOW,
                            key.getBytes(StandardCharsets.UTF_8),
                            value.getBytes(StandardCharsets.UTF_8),
                            null,
                            (metadata, error) -> onAck.accept(value, error));
                }

                @Override
                public void flush() {
                    producer.flush();
                }

                @Override
                public void close() {
                    producer.close();
                }
            };
        });
    }

    /**
     * Sends {@value #RECORDS} records, killing the broker with SIGKILL {@value #CRASHES} times mid-stream and
     * restarting it on the same port and log directory; then every acknowledged record must be in the log
     * exactly once, and nothing else.
     */
    private void produceThroughCrashes(final Path dir, final Function<String, AckingProducer> producers)
            throws Exception {
        final int port = freePort();
        final String bootstrap = "127.0.0.1:" + port;
        BrokerProcess broker = BrokerProcess.start(dir, port);
        try {
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
                admin.createTopics(List.of(new NewTopic("crash", PARTITIONS, (short) 1)))
                        .all()
                        .get();
            }
            final Set<String> acked = ConcurrentHashMap.newKeySet();
            final AtomicInteger failed = new AtomicInteger();
            final AtomicReference<Exception> firstFailure = new AtomicReference<>();
            final BiConsumer<String, Exception> onAck = (value, error) -> {
                if (error == null) {
                    acked.add(value);
                } else if (failed.incrementAndGet() == 1) {
                    firstFailure.set(error);
                }
            };
            try (AckingProducer producer = producers.apply(bootstrap)) {
                int crashes = 0;
                for (int i = 0; i < RECORDS; i++) {
                    producer.send(Integer.toString(i), "record-" + i, onAck);
                    if (crashes < CRASHES && i == (crashes + 1) * RECORDS / (CRASHES + 1)) {
                        // Let some of what was sent be acknowledged, then pull the plug mid-stream.
                        final int target = acked.size() + 1000;
                        final long deadline =
                                System.nanoTime() + Duration.ofSeconds(30).toNanos();
                        while (acked.size() < target && System.nanoTime() < deadline) {
                            Thread.onSpinWait();
                        }
                        broker.kill9();
                        broker = BrokerProcess.start(dir, port);
                        crashes++;
                    }
                }
                producer.flush();
            }
            assertThat(failed.get())
                    .as("sends that failed even with retries, first: %s", firstFailure.get())
                    .isZero();
            assertThat(acked).hasSize(RECORDS);

            final List<String> consumed = consumeAll(bootstrap, RECORDS);
            assertThat(consumed).hasSize(RECORDS).doesNotHaveDuplicates();
            assertThat(consumed).containsExactlyInAnyOrderElementsOf(acked);
            // SIGTERM: the JVM exits with 128+15 after the shutdown hook closed every log cleanly.
            assertThat(broker.terminate()).isEqualTo(143);
            for (int p = 0; p < PARTITIONS; p++) {
                assertThat(dir.resolve("crash-" + p).resolve(LogFileNames.CLEAN_SHUTDOWN_FILE))
                        .exists();
            }
        } finally {
            broker.close();
        }
    }

    private static KafkaProducer<String, String> producer(final String bootstrap) {
        final Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 2);
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000);
        props.put(ProducerConfig.RECONNECT_BACKOFF_MS_CONFIG, 50);
        props.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    private static List<String> consumeAll(final String bootstrap, final int expected) {
        final Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        final List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
            final List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                partitions.add(new TopicPartition("crash", p));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (values.size() < expected && System.nanoTime() < deadline) {
                for (final ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    values.add(record.value());
                }
            }
            // Anything beyond the expected count would be a duplicate: give it a moment to show up.
            for (int i = 0; i < 3; i++) {
                consumer.poll(Duration.ofMillis(200)).forEach(record -> values.add(record.value()));
            }
        }
        return values;
    }
}
