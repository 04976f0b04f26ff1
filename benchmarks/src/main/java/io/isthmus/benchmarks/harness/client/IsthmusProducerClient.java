package io.isthmus.benchmarks.harness.client;

import io.isthmus.client.producer.DeliveryListener;
import io.isthmus.client.producer.IsthmusProducer;
import io.isthmus.client.producer.ProducerConfig;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The isthmus producer over TCP, uncompressed, idempotent exactly when {@code acks=all} (as the kafka-clients adapter:
 * the producer's own default is idempotent with acks=all), transactional when the case asks for transactions. {@link #send(byte[])} is the allocation-free path: {@code
 * send(topic, key, value)} with no per-record completion, failures counted by a per-batch {@link DeliveryListener}.
 */
final class IsthmusProducerClient implements ProducerClient {
    /** Room for several 256 KiB batches per partition in flight: what the isthmus demo gives its producer. */
    static final long BUFFER_MEMORY = 64L << 20;

    private final IsthmusProducer producer;
    private final String topic;
    private final AtomicLong failures = new AtomicLong();
    private final AtomicReference<Exception> firstFailure = new AtomicReference<>();

    /** @param transport {@code tcp}, or {@code shm} (not with transactions, which take TCP) */
    IsthmusProducerClient(final ClientSettings settings, final String clientId, final String transport) {
        final Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS, settings.bootstrap());
        config.put(ProducerConfig.CLIENT_ID, clientId);
        config.put(ProducerConfig.ACKS, settings.acks());
        config.put(
                ProducerConfig.ENABLE_IDEMPOTENCE,
                Boolean.toString(settings.acks().equals("all")));
        config.put(ProducerConfig.LINGER_MS, Integer.toString(settings.lingerMs()));
        config.put(ProducerConfig.BATCH_SIZE, Integer.toString(settings.batchBytes()));
        config.put(ProducerConfig.MAX_IN_FLIGHT, Integer.toString(settings.maxInFlight()));
        config.put(ProducerConfig.COMPRESSION_TYPE, "none");
        config.put(ProducerConfig.BUFFER_MEMORY, Long.toString(BUFFER_MEMORY));
        config.put(ProducerConfig.TRANSPORT, transport);
        if (settings.transactional()) {
            // One transactional id per client JVM, as the kafka-clients adapter.
            config.put(ProducerConfig.TRANSACTIONAL_ID, clientId + "-" + UUID.randomUUID());
        }
        final DeliveryListener countFailures = (topicName, partition, baseOffset, recordCount, error) -> {
            if (error != null) {
                failures.addAndGet(recordCount);
                firstFailure.compareAndSet(null, error);
            }
        };
        this.producer = new IsthmusProducer(new ProducerConfig(config), countFailures);
        this.topic = settings.topic();
        if (settings.transactional()) {
            producer.initTransactions();
        }
    }

    @Override
    public void send(final byte[] value) {
        producer.send(topic, null, value);
    }

    @Override
    public void sendAndWait(final byte[] value) throws Exception {
        producer.sendAsync(topic, IsthmusProducer.ANY_PARTITION, IsthmusProducer.NOW, null, value, null)
                .get();
    }

    @Override
    public void beginTransaction() {
        producer.beginTransaction();
    }

    @Override
    public void commitTransaction() {
        producer.commitTransaction();
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
