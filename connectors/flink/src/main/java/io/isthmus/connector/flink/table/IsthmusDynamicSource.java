package io.isthmus.connector.flink.table;

import io.isthmus.connector.flink.source.IsthmusSource;
import io.isthmus.connector.flink.source.IsthmusSourceBuilder;
import io.isthmus.connector.flink.source.IsthmusSourceOptions;
import io.isthmus.connector.flink.source.enumerator.initializer.OffsetsInitializer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.Projection;
import org.apache.flink.table.connector.format.DecodingFormat;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.SourceProvider;
import org.apache.flink.table.connector.source.abilities.SupportsReadingMetadata;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;

/** A table read with the isthmus source: physical columns from the key and value formats, then metadata columns. */
final class IsthmusDynamicSource implements ScanTableSource, SupportsReadingMetadata {
    /** What the factory worked out from the options; the source adds what the planner asks for. */
    record Settings(
            DataType physicalDataType,
            DecodingFormat<DeserializationSchema<RowData>> keyFormat,
            DecodingFormat<DeserializationSchema<RowData>> valueFormat,
            int[] keyProjection,
            int[] valueProjection,
            String keyPrefix,
            List<String> topics,
            String topicPattern,
            Map<String, String> properties,
            OffsetsInitializer startingOffsets,
            OffsetsInitializer stoppingOffsets,
            Duration discoveryInterval,
            String tableIdentifier) {}

    private final Settings settings;
    private List<String> metadataKeys = List.of();
    private DataType producedDataType;

    IsthmusDynamicSource(final Settings settings) {
        this.settings = settings;
        this.producedDataType = settings.physicalDataType();
    }

    @Override
    public ChangelogMode getChangelogMode() {
        return settings.valueFormat().getChangelogMode();
    }

    @Override
    public ScanRuntimeProvider getScanRuntimeProvider(final ScanContext context) {
        final DataType physical = settings.physicalDataType();
        final DeserializationSchema<RowData> keyDecoder = settings.keyFormat() == null
                ? null
                : settings.keyFormat()
                        .createRuntimeDecoder(
                                context, projected(physical, settings.keyProjection(), settings.keyPrefix()));
        final DeserializationSchema<RowData> valueDecoder = settings.valueFormat()
                .createRuntimeDecoder(context, projected(physical, settings.valueProjection(), settings.keyPrefix()));
        final ReadableMetadata[] metadata = new ReadableMetadata[metadataKeys.size()];
        for (int i = 0; i < metadata.length; i++) {
            metadata[i] = ReadableMetadata.of(metadataKeys.get(i));
        }
        final TypeInformation<RowData> producedType = context.createTypeInformation(producedDataType);
        final RowDataDeserializer deserializer = new RowDataDeserializer(
                keyDecoder,
                valueDecoder,
                settings.keyProjection(),
                settings.valueProjection(),
                FieldGetters.of(physical, settings.keyProjection()),
                FieldGetters.of(physical, settings.valueProjection()),
                metadata,
                DataType.getFieldCount(physical),
                producedType);
        final IsthmusSourceBuilder<RowData> builder = IsthmusSource.<RowData>builder()
                .setDeserializer(deserializer)
                .setStartingOffsets(settings.startingOffsets());
        if (settings.topicPattern() != null) {
            builder.setTopicPattern(Pattern.compile(settings.topicPattern()));
        } else {
            builder.setTopics(settings.topics());
        }
        if (settings.stoppingOffsets() != null) {
            builder.setBounded(settings.stoppingOffsets());
        }
        final Map<String, String> properties = new LinkedHashMap<>(settings.properties());
        properties.putIfAbsent(
                IsthmusSourceOptions.PARTITION_DISCOVERY_INTERVAL_MS,
                Long.toString(settings.discoveryInterval().toMillis()));
        properties.forEach(builder::setProperty);
        return SourceProvider.of(builder.build());
    }

    /** The row type a format sees: the projected columns, with the key prefix taken off their names. */
    static DataType projected(final DataType physical, final int[] projection, final String keyPrefix) {
        final DataType type = Projection.of(projection).project(physical);
        if (keyPrefix == null || keyPrefix.isEmpty()) {
            return type;
        }
        final List<String> names = DataType.getFieldNames(type);
        final List<DataType> types = DataType.getFieldDataTypes(type);
        final DataTypes.Field[] fields = new DataTypes.Field[names.size()];
        for (int i = 0; i < fields.length; i++) {
            final String name = names.get(i);
            fields[i] = DataTypes.FIELD(
                    name.startsWith(keyPrefix) ? name.substring(keyPrefix.length()) : name, types.get(i));
        }
        final DataType renamed = DataTypes.ROW(fields);
        return type.getLogicalType().isNullable() ? renamed : renamed.notNull();
    }

    @Override
    public Map<String, DataType> listReadableMetadata() {
        final Map<String, DataType> metadata = new LinkedHashMap<>();
        for (final ReadableMetadata m : ReadableMetadata.values()) {
            metadata.put(m.key, m.dataType);
        }
        return metadata;
    }

    @Override
    public void applyReadableMetadata(final List<String> keys, final DataType producedDataType) {
        this.metadataKeys = new ArrayList<>(keys);
        this.producedDataType = producedDataType;
    }

    @Override
    public DynamicTableSource copy() {
        final IsthmusDynamicSource copy = new IsthmusDynamicSource(settings);
        copy.metadataKeys = new ArrayList<>(metadataKeys);
        copy.producedDataType = producedDataType;
        return copy;
    }

    @Override
    public String asSummaryString() {
        return "isthmus table source";
    }

    @Override
    public boolean equals(final Object o) {
        return o instanceof IsthmusDynamicSource other
                && settings.equals(other.settings)
                && metadataKeys.equals(other.metadataKeys)
                && Objects.equals(producedDataType, other.producedDataType);
    }

    @Override
    public int hashCode() {
        return Objects.hash(settings, metadataKeys, producedDataType);
    }
}
