package io.isthmus.connector.flink.table;

import static io.isthmus.connector.flink.table.IsthmusConnectorOptions.DELIVERY_GUARANTEE;
import static io.isthmus.connector.flink.table.IsthmusConnectorOptions.KEY_FIELDS;
import static io.isthmus.connector.flink.table.IsthmusConnectorOptions.KEY_FIELDS_PREFIX;
import static io.isthmus.connector.flink.table.IsthmusConnectorOptions.KEY_FORMAT;
import static io.isthmus.connector.flink.table.IsthmusConnectorOptions.PROPERTIES_PREFIX;
import static io.isthmus.connector.flink.table.IsthmusConnectorOptions.PROPS_BOOTSTRAP_SERVERS;
import static io.isthmus.connector.flink.table.IsthmusConnectorOptions.PROPS_GROUP_ID;
import static io.isthmus.connector.flink.table.IsthmusConnectorOptions.SCAN_BOUNDED_MODE;
import static io.isthmus.connector.flink.table.IsthmusConnectorOptions.SCAN_BOUNDED_SPECIFIC_OFFSETS;
import static io.isthmus.connector.flink.table.IsthmusConnectorOptions.SCAN_BOUNDED_TIMESTAMP_MILLIS;
import static io.isthmus.connector.flink.table.IsthmusConnectorOptions.SCAN_STARTUP_MODE;
import static io.isthmus.connector.flink.table.IsthmusConnectorOptions.SCAN_STARTUP_SPECIFIC_OFFSETS;
import static io.isthmus.connector.flink.table.IsthmusConnectorOptions.SCAN_STARTUP_TIMESTAMP_MILLIS;
import static io.isthmus.connector.flink.table.IsthmusConnectorOptions.SCAN_TOPIC_PARTITION_DISCOVERY;
import static io.isthmus.connector.flink.table.IsthmusConnectorOptions.SINK_PARTITIONER;
import static io.isthmus.connector.flink.table.IsthmusConnectorOptions.TOPIC;
import static io.isthmus.connector.flink.table.IsthmusConnectorOptions.TOPIC_PATTERN;
import static io.isthmus.connector.flink.table.IsthmusConnectorOptions.TRANSACTIONAL_ID_PREFIX;
import static io.isthmus.connector.flink.table.IsthmusConnectorOptions.VALUE_FIELDS_INCLUDE;
import static io.isthmus.connector.flink.table.IsthmusConnectorOptions.VALUE_FORMAT;

import io.isthmus.client.consumer.ConsumerConfig.OffsetReset;
import io.isthmus.connector.flink.source.enumerator.initializer.OffsetsInitializer;
import io.isthmus.connector.flink.table.IsthmusConnectorOptions.ValueFieldsStrategy;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.format.DecodingFormat;
import org.apache.flink.table.connector.format.EncodingFormat;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DeserializationFormatFactory;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.factories.SerializationFormatFactory;
import org.apache.flink.table.types.DataType;
import org.apache.kafka.common.TopicPartition;

/**
 * {@code 'connector' = 'isthmus'}: a table over topics, read with {@link io.isthmus.connector.flink.source.IsthmusSource}
 * and written with {@link io.isthmus.connector.flink.sink.IsthmusSink}, configured with the Kafka SQL connector's
 * options ({@link IsthmusConnectorOptions}).
 */
public final class IsthmusDynamicTableFactory implements DynamicTableSourceFactory, DynamicTableSinkFactory {
    public static final String IDENTIFIER = "isthmus";

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(PROPS_BOOTSTRAP_SERVERS);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return new LinkedHashSet<>(List.of(
                FactoryUtil.FORMAT,
                KEY_FORMAT,
                KEY_FIELDS,
                KEY_FIELDS_PREFIX,
                VALUE_FORMAT,
                VALUE_FIELDS_INCLUDE,
                TOPIC,
                TOPIC_PATTERN,
                PROPS_GROUP_ID,
                SCAN_STARTUP_MODE,
                SCAN_STARTUP_SPECIFIC_OFFSETS,
                SCAN_STARTUP_TIMESTAMP_MILLIS,
                SCAN_BOUNDED_MODE,
                SCAN_BOUNDED_SPECIFIC_OFFSETS,
                SCAN_BOUNDED_TIMESTAMP_MILLIS,
                SCAN_TOPIC_PARTITION_DISCOVERY,
                DELIVERY_GUARANTEE,
                TRANSACTIONAL_ID_PREFIX,
                SINK_PARTITIONER));
    }

    @Override
    public DynamicTableSource createDynamicTableSource(final Context context) {
        final FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        final DecodingFormat<DeserializationSchema<RowData>> keyFormat = helper.discoverOptionalDecodingFormat(
                        DeserializationFormatFactory.class, KEY_FORMAT)
                .orElse(null);
        final DecodingFormat<DeserializationSchema<RowData>> valueFormat = helper.discoverOptionalDecodingFormat(
                        DeserializationFormatFactory.class, FactoryUtil.FORMAT)
                .orElseGet(() -> helper.discoverDecodingFormat(DeserializationFormatFactory.class, VALUE_FORMAT));
        helper.validateExcept(PROPERTIES_PREFIX);
        final ReadableConfig options = helper.getOptions();
        final List<String> topics = options.getOptional(TOPIC).orElse(null);
        final String pattern = options.getOptional(TOPIC_PATTERN).orElse(null);
        if ((topics == null) == (pattern == null)) {
            throw new ValidationException("exactly one of 'topic' and 'topic-pattern' must be set for a source: table="
                    + context.getObjectIdentifier());
        }
        final DataType physical = context.getPhysicalRowDataType();
        final int[] keyProjection = keyProjection(options, physical, keyFormat != null);
        final int[] valueProjection = valueProjection(options, physical, keyProjection);
        final Map<String, String> properties =
                properties(context.getCatalogTable().getOptions());
        final String singleTopic = topics != null && topics.size() == 1 ? topics.get(0) : null;
        final OffsetsInitializer start = startingOffsets(options, properties, singleTopic);
        final OffsetsInitializer stop = stoppingOffsets(options, singleTopic);
        return new IsthmusDynamicSource(new IsthmusDynamicSource.Settings(
                physical,
                keyFormat,
                valueFormat,
                keyProjection,
                valueProjection,
                options.getOptional(KEY_FIELDS_PREFIX).orElse(null),
                topics,
                pattern,
                properties,
                start,
                stop,
                options.get(SCAN_TOPIC_PARTITION_DISCOVERY),
                context.getObjectIdentifier().asSummaryString()));
    }

    @Override
    public DynamicTableSink createDynamicTableSink(final Context context) {
        final FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        final EncodingFormat<SerializationSchema<RowData>> keyFormat = helper.discoverOptionalEncodingFormat(
                        SerializationFormatFactory.class, KEY_FORMAT)
                .orElse(null);
        final EncodingFormat<SerializationSchema<RowData>> valueFormat = helper.discoverOptionalEncodingFormat(
                        SerializationFormatFactory.class, FactoryUtil.FORMAT)
                .orElseGet(() -> helper.discoverEncodingFormat(SerializationFormatFactory.class, VALUE_FORMAT));
        helper.validateExcept(PROPERTIES_PREFIX);
        final ReadableConfig options = helper.getOptions();
        final List<String> topics = options.getOptional(TOPIC).orElse(List.of());
        if (topics.size() != 1 || options.getOptional(TOPIC_PATTERN).isPresent()) {
            throw new ValidationException("a sink writes exactly one 'topic' and no 'topic-pattern': table="
                    + context.getObjectIdentifier() + ", topic=" + topics);
        }
        final DeliveryGuarantee guarantee = options.get(DELIVERY_GUARANTEE);
        if (guarantee == DeliveryGuarantee.EXACTLY_ONCE
                && options.getOptional(TRANSACTIONAL_ID_PREFIX).isEmpty()) {
            // Kafka's SQL connector asks the same: transaction names must be stable across the job's restarts.
            throw new ValidationException("'sink.delivery-guarantee' = 'exactly-once' needs"
                    + " 'sink.transactional-id-prefix', unique to the job and the same across its restarts: table="
                    + context.getObjectIdentifier());
        }
        final String partitioner = options.get(SINK_PARTITIONER);
        if (!partitioner.equals("default") && !partitioner.equals("fixed")) {
            throw new ValidationException("'sink.partitioner' must be 'default' or 'fixed': value=" + partitioner);
        }
        final DataType physical = context.getPhysicalRowDataType();
        final int[] keyProjection = keyProjection(options, physical, keyFormat != null);
        return new IsthmusDynamicSink(new IsthmusDynamicSink.Settings(
                physical,
                keyFormat,
                valueFormat,
                keyProjection,
                valueProjection(options, physical, keyProjection),
                options.getOptional(KEY_FIELDS_PREFIX).orElse(null),
                topics.get(0),
                properties(context.getCatalogTable().getOptions()),
                guarantee,
                options.getOptional(TRANSACTIONAL_ID_PREFIX).orElse(null),
                partitioner.equals("fixed")));
    }

    /** Positions of the {@code key.fields} columns in the physical row. */
    private static int[] keyProjection(final ReadableConfig options, final DataType physical, final boolean keyFormat) {
        final List<String> keyFields = options.get(KEY_FIELDS);
        if (keyFormat != keyFields.isEmpty()) {
            // Both set, or both unset: fine. One without the other is not.
        } else {
            throw new ValidationException(
                    keyFormat
                            ? "'key.format' is set but 'key.fields' names no column"
                            : "'key.fields' is set but no 'key.format'");
        }
        final List<String> names = DataType.getFieldNames(physical);
        final String prefix = options.getOptional(KEY_FIELDS_PREFIX).orElse("");
        final int[] projection = new int[keyFields.size()];
        for (int i = 0; i < keyFields.size(); i++) {
            final int position = names.indexOf(keyFields.get(i));
            if (position < 0) {
                throw new ValidationException("'key.fields' names a column the table does not have: column="
                        + keyFields.get(i) + ", columns=" + names);
            }
            if (!keyFields.get(i).startsWith(prefix)) {
                throw new ValidationException(
                        "key column " + keyFields.get(i) + " lacks 'key.fields-prefix' " + prefix);
            }
            projection[i] = position;
        }
        return projection;
    }

    /** Positions of the value's columns: all physical columns, or all but the key's. */
    private static int[] valueProjection(
            final ReadableConfig options, final DataType physical, final int[] keyProjection) {
        final int count = DataType.getFieldCount(physical);
        if (options.get(VALUE_FIELDS_INCLUDE) == ValueFieldsStrategy.ALL) {
            if (options.getOptional(KEY_FIELDS_PREFIX).isPresent()) {
                throw new ValidationException(
                        "'key.fields-prefix' needs 'value.fields-include' = 'EXCEPT_KEY' (a prefixed key column"
                                + " cannot be in the value)");
            }
            return IntStream.range(0, count).toArray();
        }
        final Set<Integer> key = new java.util.HashSet<>();
        for (final int k : keyProjection) {
            key.add(k);
        }
        return IntStream.range(0, count).filter(i -> !key.contains(i)).toArray();
    }

    /** Every {@code properties.*} option, prefix removed: settings of the isthmus consumer or producer. */
    private static Map<String, String> properties(final Map<String, String> tableOptions) {
        final Map<String, String> properties = new HashMap<>();
        tableOptions.forEach((key, value) -> {
            if (key.startsWith(PROPERTIES_PREFIX)) {
                properties.put(key.substring(PROPERTIES_PREFIX.length()), value);
            }
        });
        return properties;
    }

    private static OffsetsInitializer startingOffsets(
            final ReadableConfig options, final Map<String, String> properties, final String singleTopic) {
        return switch (options.get(SCAN_STARTUP_MODE)) {
            case EARLIEST_OFFSET -> OffsetsInitializer.earliest();
            case LATEST_OFFSET -> OffsetsInitializer.latest();
            case GROUP_OFFSETS -> {
                if (!properties.containsKey("group.id")) {
                    throw new ValidationException("'scan.startup.mode' = 'group-offsets' needs 'properties.group.id'");
                }
                // As Kafka's: partitions without a committed offset follow properties.auto.offset.reset (none).
                yield OffsetsInitializer.committedOffsets(OffsetReset.valueOf(properties
                        .getOrDefault("auto.offset.reset", "none")
                        .trim()
                        .toUpperCase(Locale.ROOT)));
            }
            case TIMESTAMP -> OffsetsInitializer.timestamp(required(options, SCAN_STARTUP_TIMESTAMP_MILLIS));
            case SPECIFIC_OFFSETS ->
                OffsetsInitializer.offsets(specific(
                        required(options, SCAN_STARTUP_SPECIFIC_OFFSETS), singleTopic, SCAN_STARTUP_SPECIFIC_OFFSETS));
        };
    }

    private static OffsetsInitializer stoppingOffsets(final ReadableConfig options, final String singleTopic) {
        return switch (options.get(SCAN_BOUNDED_MODE)) {
            case UNBOUNDED -> null;
            case LATEST_OFFSET -> OffsetsInitializer.latest();
            case GROUP_OFFSETS -> OffsetsInitializer.committedOffsets();
            case TIMESTAMP -> OffsetsInitializer.timestamp(required(options, SCAN_BOUNDED_TIMESTAMP_MILLIS));
            case SPECIFIC_OFFSETS ->
                OffsetsInitializer.offsets(specific(
                        required(options, SCAN_BOUNDED_SPECIFIC_OFFSETS), singleTopic, SCAN_BOUNDED_SPECIFIC_OFFSETS));
        };
    }

    private static Map<TopicPartition, Long> specific(
            final String text, final String singleTopic, final ConfigOption<String> option) {
        if (singleTopic == null) {
            throw new ValidationException("'" + option.key() + "' needs exactly one 'topic'");
        }
        return SpecificOffsets.parse(text, singleTopic, option.key());
    }

    private static <T> T required(final ReadableConfig options, final ConfigOption<T> option) {
        return options.getOptional(option)
                .orElseThrow(() -> new ValidationException("'" + option.key() + "' must be set for this mode"));
    }
}
