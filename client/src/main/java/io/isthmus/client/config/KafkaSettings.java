package io.isthmus.client.config;

import io.isthmus.client.consumer.ConsumerConfig;
import io.isthmus.client.producer.ProducerConfig;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Settings written for kafka-clients, made fit for the isthmus clients. Stream-engine users carry their Kafka
 * properties over (a Flink job's {@code setProperty}, Spark's {@code kafka.*} options); the isthmus clients refuse
 * keys they do not know, so that a typo never falls back to a default silently. This class sits between the two:
 *
 * <ul>
 *   <li>a key the isthmus client knows is kept;
 *   <li>a key kafka-clients knows (its own {@code configNames()}, so the list is Kafka's, not a copy) that isthmus has
 *       no use for is dropped with one logged warning naming every such key: deserializers (records arrive as memory
 *       slices), metrics reporters, reconnect backoffs and the like; so is a key of the other Kafka client (a consumer
 *       setting given to a producer), as kafka-clients ignores it, since connectors hand one property set to both;
 *   <li>{@code security.protocol}, {@code sasl.mechanism} and {@code sasl.jaas.config} are the isthmus clients' own
 *       keys: SASL_PLAINTEXT with PLAIN or SCRAM is served, TLS is refused there (dropping the key would send the data
 *       in the clear where the user asked for encryption);
 *   <li>any other key is refused, as the isthmus client itself would.
 * </ul>
 */
public final class KafkaSettings {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaSettings.class);

    /** What a translation kept and what it dropped. */
    public record Translated(Map<String, Object> settings, Set<String> ignored) {}

    private KafkaSettings() {}

    /** Kafka consumer settings for an {@link io.isthmus.client.consumer.IsthmusConsumer}. */
    public static Translated forConsumer(final Map<String, ?> settings) {
        return translate(
                settings,
                ConsumerConfig.names(),
                org.apache.kafka.clients.consumer.ConsumerConfig.configNames(),
                org.apache.kafka.clients.producer.ProducerConfig.configNames(),
                "consumer");
    }

    /** Kafka producer settings for an {@link io.isthmus.client.producer.IsthmusProducer}. */
    public static Translated forProducer(final Map<String, ?> settings) {
        return translate(
                settings,
                ProducerConfig.names(),
                org.apache.kafka.clients.producer.ProducerConfig.configNames(),
                org.apache.kafka.clients.consumer.ConsumerConfig.configNames(),
                "producer");
    }

    private static Translated translate(
            final Map<String, ?> settings,
            final Set<String> isthmusNames,
            final Set<String> kafkaNames,
            final Set<String> otherKafkaNames,
            final String clientKind) {
        final Map<String, Object> kept = new HashMap<>();
        final Set<String> ignored = new TreeSet<>();
        for (final Map.Entry<String, ?> e : settings.entrySet()) {
            final String key = e.getKey();
            if (isthmusNames.contains(key)) {
                kept.put(key, e.getValue());
            } else if (kafkaNames.contains(key) || otherKafkaNames.contains(key)) {
                // The other client's settings too: Kafka's connectors hand one property set to both clients (a SQL
                // table's properties.*), and kafka-clients ignores what is not its own.
                ignored.add(key);
            } else {
                throw new IllegalArgumentException("unknown " + clientKind + " setting: key=" + key
                        + " (neither an isthmus nor a Kafka " + clientKind + " setting), isthmus settings="
                        + new TreeSet<>(isthmusNames));
            }
        }
        if (!ignored.isEmpty()) {
            LOG.warn(
                    "Kafka {} settings without meaning for the isthmus {} are ignored: {}",
                    clientKind,
                    clientKind,
                    ignored);
        }
        return new Translated(Collections.unmodifiableMap(kept), Collections.unmodifiableSet(ignored));
    }
}
