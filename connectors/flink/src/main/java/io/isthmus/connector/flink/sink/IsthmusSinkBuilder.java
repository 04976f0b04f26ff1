package io.isthmus.connector.flink.sink;

import io.isthmus.client.config.KafkaSettings;
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
 * <p>{@link DeliveryGuarantee#EXACTLY_ONCE} needs transactions in the broker, which isthmus does not have yet: asking
 * for it fails the build with that reason rather than quietly giving a weaker guarantee.
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

    /** Kept for the exactly-once mode; as Kafka's, it must stay the same across restarts of a job. */
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
        if (deliveryGuarantee == DeliveryGuarantee.EXACTLY_ONCE) {
            throw new UnsupportedOperationException("EXACTLY_ONCE needs broker transactions, which isthmus does not"
                    + " have yet; use AT_LEAST_ONCE (every checkpoint waits for its records' acknowledgements)"
                    + (transactionalIdPrefix == null ? "" : ", transactionalIdPrefix=" + transactionalIdPrefix));
        }
        final Map<String, Object> raw = new HashMap<>();
        for (final String key : properties.stringPropertyNames()) {
            raw.put(key, properties.getProperty(key));
        }
        final Map<String, Object> settings =
                new HashMap<>(KafkaSettings.forProducer(raw).settings());
        if (settings.remove(ProducerConfig.TRANSACTIONAL_ID) != null) {
            // The sink's writers are not transactional (no EXACTLY_ONCE yet): a transactional producer would refuse
            // every send outside a transaction. Dropped as before the client had transactions.
            LOG.warn(
                    "producer setting {} is ignored: the sink sets transactional ids itself, for EXACTLY_ONCE only",
                    ProducerConfig.TRANSACTIONAL_ID);
        }
        final Object bootstrap = settings.get(ProducerConfig.BOOTSTRAP_SERVERS);
        if (bootstrap == null || bootstrap.toString().isBlank()) {
            throw new IllegalStateException("no bootstrap servers: call setBootstrapServers");
        }
        new ProducerConfig(settings); // refuses a bad value now, not in a task manager later
        final HashMap<String, String> producerSettings = new HashMap<>();
        settings.forEach((k, v) -> producerSettings.put(k, String.valueOf(v)));
        final String clientIdPrefix =
                transactionalIdPrefix != null ? transactionalIdPrefix : "IsthmusSink-" + UUID.randomUUID();
        return new IsthmusSink<>(producerSettings, deliveryGuarantee, serializer, clientIdPrefix);
    }
}
