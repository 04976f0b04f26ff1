package io.isthmus.connector.flink.source.reader.deserializer;

import io.isthmus.client.consumer.ConsumedRecord;
import java.io.IOException;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.util.Collector;

/** Each value, copied once into a {@code byte[]}, through a Flink {@link DeserializationSchema}. */
final class ValueOnlyDeserializationSchema<V> implements IsthmusRecordDeserializationSchema<V> {
    private static final long serialVersionUID = 1L;

    private final DeserializationSchema<V> valueSchema;

    ValueOnlyDeserializationSchema(final DeserializationSchema<V> valueSchema) {
        this.valueSchema = valueSchema;
    }

    @Override
    public void open(final DeserializationSchema.InitializationContext context) throws Exception {
        valueSchema.open(context);
    }

    @Override
    public void deserialize(final ConsumedRecord record, final Collector<V> out) throws IOException {
        valueSchema.deserialize(record.valueAsArray(), out);
    }

    @Override
    public TypeInformation<V> getProducedType() {
        return valueSchema.getProducedType();
    }
}
