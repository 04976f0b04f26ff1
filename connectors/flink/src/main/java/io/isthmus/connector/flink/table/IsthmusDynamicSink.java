package io.isthmus.connector.flink.table;

import io.isthmus.connector.flink.sink.IsthmusSink;
import io.isthmus.connector.flink.sink.IsthmusSinkBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.format.EncodingFormat;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.SinkV2Provider;
import org.apache.flink.table.connector.sink.abilities.SupportsWritingMetadata;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;

/** A table written with the isthmus sink: insert-only rows to one topic, with writable headers and timestamp. */
final class IsthmusDynamicSink implements DynamicTableSink, SupportsWritingMetadata {
    static final String HEADERS = "headers";
    static final String TIMESTAMP = "timestamp";

    /** What the factory worked out from the options. */
    record Settings(
            DataType physicalDataType,
            EncodingFormat<SerializationSchema<RowData>> keyFormat,
            EncodingFormat<SerializationSchema<RowData>> valueFormat,
            int[] keyProjection,
            int[] valueProjection,
            String keyPrefix,
            String topic,
            Map<String, String> properties,
            DeliveryGuarantee deliveryGuarantee,
            String transactionalIdPrefix,
            boolean fixedPartition) {}

    private final Settings settings;
    private List<String> metadataKeys = List.of();

    IsthmusDynamicSink(final Settings settings) {
        this.settings = settings;
    }

    @Override
    public ChangelogMode getChangelogMode(final ChangelogMode requestedMode) {
        return settings.valueFormat().getChangelogMode();
    }

    @Override
    public SinkRuntimeProvider getSinkRuntimeProvider(final Context context) {
        final DataType physical = settings.physicalDataType();
        final SerializationSchema<RowData> keyEncoder = settings.keyFormat() == null
                ? null
                : settings.keyFormat()
                        .createRuntimeEncoder(
                                context,
                                IsthmusDynamicSource.projected(
                                        physical, settings.keyProjection(), settings.keyPrefix()));
        final SerializationSchema<RowData> valueEncoder = settings.valueFormat()
                .createRuntimeEncoder(
                        context,
                        IsthmusDynamicSource.projected(physical, settings.valueProjection(), settings.keyPrefix()));
        final int physicalArity = DataType.getFieldCount(physical);
        final RowDataSerializer serializer = new RowDataSerializer(
                settings.topic(),
                keyEncoder,
                valueEncoder,
                FieldGetters.inPhysicalRow(physical, settings.keyProjection()),
                FieldGetters.inPhysicalRow(physical, settings.valueProjection()),
                metadataPosition(HEADERS, physicalArity),
                metadataPosition(TIMESTAMP, physicalArity),
                settings.fixedPartition());
        final IsthmusSinkBuilder<RowData> builder = IsthmusSink.<RowData>builder()
                .setRecordSerializer(serializer)
                .setDeliveryGuarantee(settings.deliveryGuarantee());
        if (settings.transactionalIdPrefix() != null) {
            builder.setTransactionalIdPrefix(settings.transactionalIdPrefix());
        }
        settings.properties().forEach(builder::setProperty);
        return SinkV2Provider.of(builder.build());
    }

    /** Where a metadata column is in the consumed row (metadata follow the physical columns), or -1. */
    private int metadataPosition(final String key, final int physicalArity) {
        final int index = metadataKeys.indexOf(key);
        return index < 0 ? -1 : physicalArity + index;
    }

    @Override
    public Map<String, DataType> listWritableMetadata() {
        final Map<String, DataType> metadata = new LinkedHashMap<>();
        metadata.put(
                HEADERS,
                DataTypes.MAP(DataTypes.STRING().nullable(), DataTypes.BYTES().nullable())
                        .nullable());
        metadata.put(TIMESTAMP, DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(3).nullable());
        return metadata;
    }

    @Override
    public void applyWritableMetadata(final List<String> keys, final DataType consumedDataType) {
        this.metadataKeys = new ArrayList<>(keys);
    }

    @Override
    public DynamicTableSink copy() {
        final IsthmusDynamicSink copy = new IsthmusDynamicSink(settings);
        copy.metadataKeys = new ArrayList<>(metadataKeys);
        return copy;
    }

    @Override
    public String asSummaryString() {
        return "isthmus table sink";
    }

    @Override
    public boolean equals(final Object o) {
        return o instanceof IsthmusDynamicSink other
                && settings.equals(other.settings)
                && metadataKeys.equals(other.metadataKeys);
    }

    @Override
    public int hashCode() {
        return Objects.hash(settings, metadataKeys);
    }
}
