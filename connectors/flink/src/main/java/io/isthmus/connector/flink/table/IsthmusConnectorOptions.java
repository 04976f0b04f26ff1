package io.isthmus.connector.flink.table;

import static org.apache.flink.configuration.description.TextElement.text;

import java.time.Duration;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.DescribedEnum;
import org.apache.flink.configuration.description.InlineElement;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.table.factories.FactoryUtil;

/**
 * The SQL connector's options: the Kafka SQL connector's names, defaults and value syntax, so a {@code CREATE TABLE}
 * written for {@code 'connector' = 'kafka'} works with {@code 'connector' = 'isthmus'}. Every {@code properties.*}
 * option goes to the isthmus consumer or producer ({@code properties.transport = 'rdma'} included).
 */
public final class IsthmusConnectorOptions {
    public static final String PROPERTIES_PREFIX = "properties.";

    public static final ConfigOption<List<String>> TOPIC = ConfigOptions.key("topic")
            .stringType()
            .asList()
            .noDefaultValue()
            .withDescription("Topics to read from (semicolon-separated) or the one topic to write to.");

    public static final ConfigOption<String> TOPIC_PATTERN = ConfigOptions.key("topic-pattern")
            .stringType()
            .noDefaultValue()
            .withDescription("A regular expression over topic names to read from, instead of 'topic'.");

    public static final ConfigOption<String> PROPS_BOOTSTRAP_SERVERS = ConfigOptions.key("properties.bootstrap.servers")
            .stringType()
            .noDefaultValue()
            .withDescription("The brokers to bootstrap from.");

    public static final ConfigOption<String> PROPS_GROUP_ID = ConfigOptions.key("properties.group.id")
            .stringType()
            .noDefaultValue()
            .withDescription("The consumer group of the source (for group-offsets and offset commits).");

    public static final ConfigOption<String> KEY_FORMAT = ConfigOptions.key("key" + FactoryUtil.FORMAT_SUFFIX)
            .stringType()
            .noDefaultValue()
            .withDescription("The format of the record key.");

    public static final ConfigOption<String> VALUE_FORMAT = ConfigOptions.key("value" + FactoryUtil.FORMAT_SUFFIX)
            .stringType()
            .noDefaultValue()
            .withFallbackKeys(FactoryUtil.FORMAT.key())
            .withDescription("The format of the record value.");

    public static final ConfigOption<List<String>> KEY_FIELDS = ConfigOptions.key("key.fields")
            .stringType()
            .asList()
            .defaultValues()
            .withDescription("The physical columns (semicolon-separated) that make up the key.");

    public static final ConfigOption<String> KEY_FIELDS_PREFIX = ConfigOptions.key("key.fields-prefix")
            .stringType()
            .noDefaultValue()
            .withDescription("A prefix of the key columns' names that the key format does not see.");

    public static final ConfigOption<ValueFieldsStrategy> VALUE_FIELDS_INCLUDE = ConfigOptions.key(
                    "value.fields-include")
            .enumType(ValueFieldsStrategy.class)
            .defaultValue(ValueFieldsStrategy.ALL)
            .withDescription("Whether the value holds all physical columns or all except the key's.");

    public static final ConfigOption<ScanStartupMode> SCAN_STARTUP_MODE = ConfigOptions.key("scan.startup.mode")
            .enumType(ScanStartupMode.class)
            .defaultValue(ScanStartupMode.GROUP_OFFSETS)
            .withDescription("Where the source starts.");

    public static final ConfigOption<String> SCAN_STARTUP_SPECIFIC_OFFSETS = ConfigOptions.key(
                    "scan.startup.specific-offsets")
            .stringType()
            .noDefaultValue()
            .withDescription("For specific-offsets: 'partition:0,offset:42;partition:1,offset:300'.");

    public static final ConfigOption<Long> SCAN_STARTUP_TIMESTAMP_MILLIS = ConfigOptions.key(
                    "scan.startup.timestamp-millis")
            .longType()
            .noDefaultValue()
            .withDescription("For timestamp: milliseconds since the epoch.");

    public static final ConfigOption<ScanBoundedMode> SCAN_BOUNDED_MODE = ConfigOptions.key("scan.bounded.mode")
            .enumType(ScanBoundedMode.class)
            .defaultValue(ScanBoundedMode.UNBOUNDED)
            .withDescription("Where a bounded source stops.");

    public static final ConfigOption<String> SCAN_BOUNDED_SPECIFIC_OFFSETS = ConfigOptions.key(
                    "scan.bounded.specific-offsets")
            .stringType()
            .noDefaultValue()
            .withDescription("For specific-offsets: 'partition:0,offset:42;partition:1,offset:300'.");

    public static final ConfigOption<Long> SCAN_BOUNDED_TIMESTAMP_MILLIS = ConfigOptions.key(
                    "scan.bounded.timestamp-millis")
            .longType()
            .noDefaultValue()
            .withDescription("For timestamp: milliseconds since the epoch.");

    public static final ConfigOption<Duration> SCAN_TOPIC_PARTITION_DISCOVERY = ConfigOptions.key(
                    "scan.topic-partition-discovery.interval")
            .durationType()
            .defaultValue(Duration.ofMinutes(5))
            .withDescription("How often to look for new partitions and topics; 0 turns discovery off.");

    public static final ConfigOption<DeliveryGuarantee> DELIVERY_GUARANTEE = ConfigOptions.key(
                    "sink.delivery-guarantee")
            .enumType(DeliveryGuarantee.class)
            .defaultValue(DeliveryGuarantee.AT_LEAST_ONCE)
            .withDescription("none, at-least-once or exactly-once (a transaction per checkpoint; needs"
                    + " sink.transactional-id-prefix).");

    public static final ConfigOption<String> TRANSACTIONAL_ID_PREFIX = ConfigOptions.key("sink.transactional-id-prefix")
            .stringType()
            .noDefaultValue()
            .withDescription("Names the exactly-once sink's transactions; unique to the job, the same across its"
                    + " restarts.");

    public static final ConfigOption<String> SINK_PARTITIONER = ConfigOptions.key("sink.partitioner")
            .stringType()
            .defaultValue("default")
            .withDescription("default (by key, sticky without one) or fixed (each subtask writes one partition).");

    private IsthmusConnectorOptions() {}

    /** {@code scan.startup.mode}, with Kafka's values. */
    public enum ScanStartupMode implements DescribedEnum {
        EARLIEST_OFFSET("earliest-offset", "from the earliest offset"),
        LATEST_OFFSET("latest-offset", "from the latest offset"),
        GROUP_OFFSETS(
                "group-offsets",
                "from the group's committed offsets; properties.auto.offset.reset (default none: fail) where none"),
        TIMESTAMP("timestamp", "from the first record at or after scan.startup.timestamp-millis"),
        SPECIFIC_OFFSETS("specific-offsets", "from scan.startup.specific-offsets");

        private final String value;
        private final String description;

        ScanStartupMode(final String value, final String description) {
            this.value = value;
            this.description = description;
        }

        @Override
        public String toString() {
            return value;
        }

        @Override
        public InlineElement getDescription() {
            return text(description);
        }
    }

    /** {@code scan.bounded.mode}, with Kafka's values. */
    public enum ScanBoundedMode implements DescribedEnum {
        UNBOUNDED("unbounded", "do not stop"),
        LATEST_OFFSET("latest-offset", "stop at the latest offset when the job starts"),
        GROUP_OFFSETS("group-offsets", "stop at the group's committed offsets"),
        TIMESTAMP("timestamp", "stop at scan.bounded.timestamp-millis"),
        SPECIFIC_OFFSETS("specific-offsets", "stop at scan.bounded.specific-offsets");

        private final String value;
        private final String description;

        ScanBoundedMode(final String value, final String description) {
            this.value = value;
            this.description = description;
        }

        @Override
        public String toString() {
            return value;
        }

        @Override
        public InlineElement getDescription() {
            return text(description);
        }
    }

    /** {@code value.fields-include}. */
    public enum ValueFieldsStrategy {
        ALL,
        EXCEPT_KEY
    }
}
