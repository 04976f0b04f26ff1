package io.isthmus.benchmarks.harness.client;

import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * kafka-clients' {@link KafkaProducer}, uncompressed, idempotent exactly when {@code acks=all}. {@link #send(byte[])}
 * passes one shared {@link Callback} (kafka-clients has no per-batch completion), so the workload adds no allocation
 * of its own per record. With {@link ClientSettings#transactional()} settings it is a transactional producer: a {@code
 * transactional.id} of its own (no other producer, in this JVM or another, shares it), {@code initTransactions()}
 * when it is made, Kafka's {@code beginTransaction()} and {@code commitTransaction()}.
 */
final class KafkaProducerClient implements ProducerClient {
    private final KafkaProducer<byte[], byte[]> producer;
    private final String topic;
    private final boolean transactional;
    private final AtomicLong failures = new AtomicLong();
    private final AtomicReference<Exception> firstFailure = new AtomicReference<>();
    private final Callback countFailures = (metadata, error) -> {
        if (error != null) {
            failures.incrementAndGet();
            firstFailure.compareAndSet(null, error);
        }
    };

    KafkaProducerClient(final ClientSettings settings, final String clientId) {
        final Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrap());
        props.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        props.put(ProducerConfig.ACKS_CONFIG, settings.acks());
        // Idempotence requires acks=all; with acks=1 it is off, as an application asking for acks=1 would have it.
        props.put(
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                Boolean.toString(settings.acks().equals("all")));
        props.put(ProducerConfig.LINGER_MS_CONFIG, settings.lingerMs());
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, settings.batchBytes());
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, settings.maxInFlight());
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "none");
        props.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 256L << 20);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        if (settings.transactional()) {
            // Transactions imply idempotence (acks=all, which ClientSettings requires, turned it on above).
            props.put(
                    ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                    "bench-txn-" + clientId + "-" + ProcessHandle.current().pid() + "-" + UUID.randomUUID());
        }
        this.producer = new KafkaProducer<>(props);
        this.topic = settings.topic();
        this.transactional = settings.transactional();
        if (transactional) {
            try {
                producer.initTransactions();
            } catch (final RuntimeException e) {
                producer.close();
                throw e;
            }
        }
    }

    @Override
    public void beginTransaction() {
        requireTransactional();
        producer.beginTransaction();
    }

    /** kafka-clients' commit flushes the transaction's records first and throws if any of them failed. */
    @Override
    public void commitTransaction() {
        requireTransactional();
        producer.commitTransaction();
    }

    private void requireTransactional() {
        if (!transactional) {
            throw new IllegalStateException("not a transactional producer (transaction records 0)");
        }
    }

    @Override
    public void send(final byte[] value) {
        producer.send(new ProducerRecord<>(topic, value), countFailures);
    }

    @Override
    public void sendAndWait(final byte[] value) throws Exception {
        producer.send(new ProducerRecord<>(topic, value)).get();
    }

    @Override
    public void flush() {
        producer.flush();
    }

    @Override
    public long failedRecords() {
        return failures.get();
    }

    @Override
    public Exception firstFailure() {
        return firstFailure.get();
    }

    @Override
    public void close() {
        producer.close();
    }
}
