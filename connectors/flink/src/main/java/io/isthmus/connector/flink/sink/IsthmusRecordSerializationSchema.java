package io.isthmus.connector.flink.sink;

import java.io.Serializable;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Turns the sink's elements into records: Kafka's {@code KafkaRecordSerializationSchema}, with kafka-clients' {@link
 * ProducerRecord} as the record (topic, partition, key, value, headers, timestamp), so a serializer written for
 * {@code KafkaSink} moves over by a change of interface name. {@link #builder()} covers the usual case.
 */
public interface IsthmusRecordSerializationSchema<T> extends Serializable {
    /** Called once before the first element, on the task thread. */
    default void open(final SerializationSchema.InitializationContext context, final IsthmusSinkContext sinkContext)
            throws Exception {}

    /**
     * The record for {@code element}, or null to write nothing for it.
     *
     * @param timestamp the element's timestamp in the stream, or null; used when the record names none
     */
    ProducerRecord<byte[], byte[]> serialize(T element, IsthmusSinkContext context, Long timestamp);

    static <T> IsthmusRecordSerializationSchemaBuilder<T> builder() {
        return new IsthmusRecordSerializationSchemaBuilder<>();
    }
}
