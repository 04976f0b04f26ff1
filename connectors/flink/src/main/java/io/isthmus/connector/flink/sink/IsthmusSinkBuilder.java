package io.isthmus.connector.flink.sink;

import io.isthmus.client.config.KafkaSettings;
import io.isthmus.client.config.Transport;
import io.isthmus.client.producer.ProducerConfig;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.UUID;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds an {@link IsthmusSink}, method for method as Kafka's {@code KafkaSinkBuilder}: bootstrap servers, a record
 * serializer, a delivery guarantee (default {@link DeliveryGuarantee#NONE}, as Kafka's), a transactional id prefix and
 * producer properties (isthmus or Kafka names; Kafka-only ones without meaning here are dropped with a warning).
 *
 * <p>{@link DeliveryGuarantee#EXACTLY_ONCE} needs a transactional id prefix, unique to the job and the same across its
 * restarts (as Kafka's), and runs over TCP: transactional produce over RDMA is not supported, so {@code transport=rdma}
 * is refused for it rather than quietly weakened. A {@code transactional.id} property is ignored with a warning: the
 * sink names its transactions itself.
 */
public final class IsthmusSinkBuilder<IN> {
    private static final Logger LOG = LoggerFactory.getLogger(IsthmusSinkBuilder.class);

    private final Properties properties = new Properties();
    private DeliveryGuarantee deliveryGuarantee = DeliveryGuarantee.NONE;
    private IsthmusRecordSerializationSchema<IN> serializer;
    private String transactionalIdPrefix;

    IsthmusSinkBuilder() {}

    public IsthmusSinkBuilder<IN> setBootstrapServers(final String bootstrapServers) {
        return setProperty(ProducerConfig.BOOTSTRAP_SERVERS, bootstrapServers);
    }

    public IsthmusSinkBuilder<IN> setRecordSerializer(final IsthmusRecordSerializationSchema<IN> recordSerializer) {
        this.serializer = Objects.requireNonNull(recordSerializer, "recordSerializer");
        return this;
    }

    public IsthmusSinkBuilder<IN> setDeliveryGuarantee(final DeliveryGuarantee guarantee) {
        this.deliveryGuarantee = Objects.requireNonNull(guarantee, "deliveryGuarantee");
        return this;
    }

    /** Names the exactly-once sink's transactions ({@code prefix-subtask-checkpoint}); as Kafka's, it must be unique to the job and stay the same across its restarts. */
    public IsthmusSinkBuilder<IN> setTransactionalIdPrefix(final String prefix) {
        this.transactionalIdPrefix = Objects.requireNonNull(prefix, "transactionalIdPrefix");
        return this;
    }

    public IsthmusSinkBuilder<IN> setKafkaProducerConfig(final Properties props) {
        for (final String key : props.stringPropertyNames()) {
            properties.setProperty(key, props.getProperty(key));
        }
        return this;
    }

    public IsthmusSinkBuilder<IN> setProperty(final String key, final String value) {
        properties.setProperty(key, value);
        return this;
    }

    public IsthmusSink<IN> build() {
        if (serializer == null) {
            throw new IllegalStateException("no record serializer: call setRecordSerializer");
        }
        if (deliveryGuarantee == DeliveryGuarantee.EXACTLY_ONCE && transactionalIdPrefix == null) {
            throw new IllegalStateException(
                    "EXACTLY_ONCE delivery guarantee requires a transactionalIdPrefix to be set:"
                            + " setTransactionalIdPrefix, unique to this job and the same across its restarts");
        }
        final Map<String, Object> raw = new HashMap<>();
        for (final String key : properties.stringPropertyNames()) {
            raw.put(key, properties.getProperty(key));
        }
        final Map<String, Object> settings =
                new HashMap<>(KafkaSettings.forProducer(raw).settings());
        if (settings.remove(ProducerConfig.TRANSACTIONAL_ID) != null) {
            LOG.warn(
                    "producer setting {} is ignored: the sink names its transactions itself (EXACTLY_ONCE)",
                    ProducerConfig.TRANSACTIONAL_ID);
        }
        if (deliveryGuarantee == DeliveryGuarantee.EXACTLY_ONCE
                && Transport.RDMA.name().equalsIgnoreCase(String.valueOf(settings.get(ProducerConfig.TRANSPORT)))) {
            throw new IllegalArgumentException("EXACTLY_ONCE writes transactions, and transactional produce is TCP"
                    + " only: use transport=tcp or auto (which picks TCP for it), or AT_LEAST_ONCE over RDMA");
        }
        final Object bootstrap = settings.get(ProducerConfig.BOOTSTRAP_SERVERS);
        if (bootstrap == null || bootstrap.toString().isBlank()) {
            throw new IllegalStateException("no bootstrap servers: call setBootstrapServers");
        }
        new ProducerConfig(settings); // refuses a bad value now, not in a task manager later
        final HashMap<String, String> producerSettings = new HashMap<>();
        settings.forEach((k, v) -> producerSettings.put(k, String.valueOf(v)));
        final String prefix =
                transactionalIdPrefix != null ? transactionalIdPrefix : "IsthmusSink-" + UUID.randomUUID();
        return new IsthmusSink<>(producerSettings, deliveryGuarantee, serializer, prefix);
    }
}
