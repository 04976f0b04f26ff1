package io.isthmus.connector.flink.sink;

import java.util.Objects;
import java.util.function.Function;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Builds the common record serializer, as Kafka's {@code KafkaRecordSerializationSchemaBuilder}: a fixed topic or a
 * topic per element, a value schema, and optionally a key schema. Records go to the partition the producer picks
 * (by key, or sticky without one).
 */
public final class IsthmusRecordSerializationSchemaBuilder<T> {
    private String topic;
    private SerializableTopicSelector<? super T> topicSelector;
    private SerializationSchema<? super T> valueSchema;
    private SerializationSchema<? super T> keySchema;

    /** Picks a topic per element. */
    public interface SerializableTopicSelector<T> extends Function<T, String>, java.io.Serializable {}

    IsthmusRecordSerializationSchemaBuilder() {}

    public IsthmusRecordSerializationSchemaBuilder<T> setTopic(final String topic) {
        if (topicSelector != null) {
            throw new IllegalStateException("a topic selector is set already: set a topic or a selector, not both");
        }
        this.topic = Objects.requireNonNull(topic, "topic");
        return this;
    }

    public IsthmusRecordSerializationSchemaBuilder<T> setTopicSelector(
            final SerializableTopicSelector<? super T> selector) {
        if (topic != null) {
            throw new IllegalStateException("a topic is set already: set a topic or a selector, not both");
        }
        this.topicSelector = Objects.requireNonNull(selector, "selector");
        return this;
    }

    public IsthmusRecordSerializationSchemaBuilder<T> setValueSerializationSchema(
            final SerializationSchema<? super T> schema) {
        this.valueSchema = Objects.requireNonNull(schema, "schema");
        return this;
    }

    public IsthmusRecordSerializationSchemaBuilder<T> setKeySerializationSchema(
            final SerializationSchema<? super T> schema) {
        this.keySchema = Objects.requireNonNull(schema, "schema");
        return this;
    }

    public IsthmusRecordSerializationSchema<T> build() {
        if (topic == null && topicSelector == null) {
            throw new IllegalStateException("no topic: call setTopic or setTopicSelector");
        }
        if (valueSchema == null) {
            throw new IllegalStateException("no value schema: call setValueSerializationSchema");
        }
        return new SchemaBasedSerializer<>(topic, topicSelector, keySchema, valueSchema);
    }

    /** Key and value through Flink serialization schemas. */
    private static final class SchemaBasedSerializer<T> implements IsthmusRecordSerializationSchema<T> {
        private static final long serialVersionUID = 1L;

        private final String topic;
        private final SerializableTopicSelector<? super T> topicSelector;
        private final SerializationSchema<? super T> keySchema;
        private final SerializationSchema<? super T> valueSchema;

        SchemaBasedSerializer(
                final String topic,
                final SerializableTopicSelector<? super T> topicSelector,
                final SerializationSchema<? super T> keySchema,
                final SerializationSchema<? super T> valueSchema) {
            this.topic = topic;
            this.topicSelector = topicSelector;
            this.keySchema = keySchema;
            this.valueSchema = valueSchema;
        }

        @Override
        public void open(final SerializationSchema.InitializationContext context, final IsthmusSinkContext sinkContext)
                throws Exception {
            valueSchema.open(context);
            if (keySchema != null) {
                keySchema.open(context);
            }
        }

        @Override
        public ProducerRecord<byte[], byte[]> serialize(
                final T element, final IsthmusSinkContext context, final Long timestamp) {
            final String target = topic != null ? topic : topicSelector.apply(element);
            final byte[] key = keySchema == null ? null : keySchema.serialize(element);
            return new ProducerRecord<>(target, null, timestamp, key, valueSchema.serialize(element));
        }
    }
}
