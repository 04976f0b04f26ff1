package io.isthmus.connector.flink.table;

import io.isthmus.client.consumer.ConsumedRecord;
import io.isthmus.connector.flink.source.reader.deserializer.IsthmusRecordDeserializationSchema;
import java.io.IOException;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.Collector;

/**
 * Records to table rows: the physical columns from the key and value formats (each column from where {@code
 * key.fields} and {@code value.fields-include} put it), then the metadata columns. The formats take {@code byte[]}:
 * key and value are copied once from the record's slice for them. A record whose value the format drops (a null
 * value, or a parse error it is told to ignore) gives no row.
 */
final class RowDataDeserializer implements IsthmusRecordDeserializationSchema<RowData> {
    private static final long serialVersionUID = 1L;

    private final DeserializationSchema<RowData> keyFormat;
    private final DeserializationSchema<RowData> valueFormat;
    private final int[] keyProjection;
    private final int[] valueProjection;
    private final RowData.FieldGetter[] keyGetters;
    private final RowData.FieldGetter[] valueGetters;
    private final ReadableMetadata[] metadata;
    private final int physicalArity;
    private final TypeInformation<RowData> producedType;

    RowDataDeserializer(
            final DeserializationSchema<RowData> keyFormat,
            final DeserializationSchema<RowData> valueFormat,
            final int[] keyProjection,
            final int[] valueProjection,
            final RowData.FieldGetter[] keyGetters,
            final RowData.FieldGetter[] valueGetters,
            final ReadableMetadata[] metadata,
            final int physicalArity,
            final TypeInformation<RowData> producedType) {
        this.keyFormat = keyFormat;
        this.valueFormat = valueFormat;
        this.keyProjection = keyProjection;
        this.valueProjection = valueProjection;
        this.keyGetters = keyGetters;
        this.valueGetters = valueGetters;
        this.metadata = metadata;
        this.physicalArity = physicalArity;
        this.producedType = producedType;
    }

    @Override
    public void open(final DeserializationSchema.InitializationContext context) throws Exception {
        if (keyFormat != null) {
            keyFormat.open(context);
        }
        valueFormat.open(context);
    }

    @Override
    public void deserialize(final ConsumedRecord record, final Collector<RowData> out) throws IOException {
        final byte[] valueBytes = record.valueAsArray();
        if (valueBytes == null) {
            return;
        }
        final RowData value = valueFormat.deserialize(valueBytes);
        if (value == null) {
            return;
        }
        RowData key = null;
        if (keyFormat != null) {
            final byte[] keyBytes = record.keyAsArray();
            key = keyBytes == null ? null : keyFormat.deserialize(keyBytes);
        }
        final GenericRowData row = new GenericRowData(value.getRowKind(), physicalArity + metadata.length);
        for (int i = 0; i < keyProjection.length; i++) {
            row.setField(keyProjection[i], key == null ? null : keyGetters[i].getFieldOrNull(key));
        }
        for (int i = 0; i < valueProjection.length; i++) {
            row.setField(valueProjection[i], valueGetters[i].getFieldOrNull(value));
        }
        for (int i = 0; i < metadata.length; i++) {
            row.setField(physicalArity + i, metadata[i].read(record));
        }
        out.collect(row);
    }

    @Override
    public TypeInformation<RowData> getProducedType() {
        return producedType;
    }
}
