package io.isthmus.connector.flink.testing;

import io.isthmus.client.admin.IsthmusAdmin;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * An isthmus broker in the test JVM for a test class, on a fresh log directory, with an admin client and a way to
 * write records (kafka-clients' producer, acks=all, so written means acknowledged).
 */
public final class IsthmusBrokerExtension implements BeforeAllCallback, AfterAllCallback {
    private EmbeddedIsthmusBroker broker;
    private IsthmusAdmin admin;

    @Override
    public void beforeAll(final ExtensionContext context) throws Exception {
        broker = EmbeddedIsthmusBroker.start();
        admin = new IsthmusAdmin(broker.bootstrapServers());
    }

    @Override
    public void afterAll(final ExtensionContext context) throws Exception {
        if (admin != null) {
            admin.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    public String bootstrapServers() {
        return broker.bootstrapServers();
    }

    /** Where the broker's logs lie (for tests that damage them). */
    public java.nio.file.Path logDir() {
        return broker.logDir();
    }

    public IsthmusAdmin admin() {
        return admin;
    }

    public void createTopic(final String topic, final int partitions) {
        admin.createTopic(topic, partitions, (short) 1);
    }

    /** A kafka-clients producer with acks=all; close it after use. */
    public KafkaProducer<byte[], byte[]> producer() {
        final Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /**
     * Writes {@code count} records to {@code partition} with values {@code prefix-<i>} for i from {@code from}, keys
     * the same, and timestamps {@code timestampBase + i}; waits for every acknowledgement.
     */
    public void write(
            final String topic,
            final int partition,
            final String prefix,
            final int from,
            final int count,
            final long timestampBase)
            throws Exception {
        final List<Future<RecordMetadata>> acks = new ArrayList<>(count);
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int i = from; i < from + count; i++) {
                final byte[] value = (prefix + "-" + i).getBytes(StandardCharsets.UTF_8);
                acks.add(producer.send(new ProducerRecord<>(topic, partition, timestampBase + i, value, value)));
            }
            producer.flush();
            for (final Future<RecordMetadata> ack : acks) {
                ack.get();
            }
        }
    }
}
