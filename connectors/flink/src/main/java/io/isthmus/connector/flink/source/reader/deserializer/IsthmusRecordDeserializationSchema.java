package io.isthmus.connector.flink.source.reader.deserializer;

import io.isthmus.client.consumer.ConsumedRecord;
import java.io.IOException;
import java.io.Serializable;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.util.Collector;

/**
 * Turns records into the source's elements, reading them in place: the zero-copy counterpart of Kafka's {@code
 * KafkaRecordDeserializationSchema}.
 *
 * <p>The {@link ConsumedRecord} is a view into the buffer the records arrived in (a TCP receive buffer, an RDMA READ
 * target): {@link ConsumedRecord#key()}, {@link ConsumedRecord#value()} and header values are {@code MemorySegment}
 * slices of it, valid only during the call. Parse fields straight from them and no record is ever copied into the
 * heap; keep nothing of them after returning (copy what must outlive the call). Elements given to {@code out} leave
 * the source at once, stamped with the record's timestamp.
 */
public interface IsthmusRecordDeserializationSchema<T> extends Serializable, ResultTypeQueryable<T> {
    /** Called once before the first record, on the task thread. */
    default void open(final DeserializationSchema.InitializationContext context) throws Exception {}

    /** Emits zero or more elements for {@code record}. */
    void deserialize(ConsumedRecord record, Collector<T> out) throws IOException;

    /**
     * Values through a Flink {@link DeserializationSchema} (keys, headers and metadata unused): Flink's formats work
     * unchanged, at the price of one copy of each value into a {@code byte[]}.
     */
    static <V> IsthmusRecordDeserializationSchema<V> valueOnly(final DeserializationSchema<V> valueSchema) {
        return new ValueOnlyDeserializationSchema<>(valueSchema);
    }
}
