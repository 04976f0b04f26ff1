package io.isthmus.connector.spark;

import io.isthmus.client.config.KafkaSettings;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Option names and the client settings carried in options. Names are Spark's Kafka source's, so a query moved from
 * {@code format("kafka")} changes one word; client settings come as {@code isthmus.<setting>} or, unchanged from a
 * Kafka query, {@code kafka.<setting>}, and go through {@link KafkaSettings}: isthmus settings are kept, Kafka settings
 * without meaning here are dropped with a warning, anything else is refused.
 */
public final class IsthmusOptions {
    public static final String SUBSCRIBE = "subscribe";
    public static final String SUBSCRIBE_PATTERN = "subscribePattern";
    public static final String ASSIGN = "assign";
    public static final String STARTING_OFFSETS = "startingOffsets";
    public static final String ENDING_OFFSETS = "endingOffsets";
    public static final String STARTING_OFFSETS_BY_TIMESTAMP = "startingOffsetsByTimestamp";
    public static final String ENDING_OFFSETS_BY_TIMESTAMP = "endingOffsetsByTimestamp";
    public static final String STARTING_TIMESTAMP = "startingTimestamp";
    public static final String ENDING_TIMESTAMP = "endingTimestamp";
    public static final String STARTING_OFFSETS_BY_TIMESTAMP_STRATEGY = "startingOffsetsByTimestampStrategy";
    public static final String MAX_OFFSETS_PER_TRIGGER = "maxOffsetsPerTrigger";
    public static final String MIN_OFFSETS_PER_TRIGGER = "minOffsetsPerTrigger";
    public static final String MAX_TRIGGER_DELAY = "maxTriggerDelay";
    public static final String MIN_PARTITIONS = "minPartitions";
    public static final String FAIL_ON_DATA_LOSS = "failOnDataLoss";
    public static final String INCLUDE_HEADERS = "includeHeaders";
    public static final String GROUP_ID_PREFIX = "groupIdPrefix";
    public static final String POLL_TIMEOUT_MS = "kafkaConsumer.pollTimeoutMs";
    public static final String FETCH_OFFSET_NUM_RETRIES = "fetchOffset.numRetries";
    public static final String FETCH_OFFSET_RETRY_INTERVAL_MS = "fetchOffset.retryIntervalMs";
    public static final String TOPIC = "topic";

    /** The prefixes of client settings: isthmus' own and, so that Kafka queries carry over, Kafka's. */
    public static final String ISTHMUS_PREFIX = "isthmus.";

    public static final String KAFKA_PREFIX = "kafka.";

    public static final String BOOTSTRAP_SERVERS = "bootstrap.servers";

    private IsthmusOptions() {}

    /**
     * The client settings of {@code options} with their prefix taken off, translated for the isthmus consumer or
     * producer. {@code refused} maps a setting the connector owns to the reason a user may not set it.
     *
     * @throws IllegalArgumentException without {@code bootstrap.servers}, for a refused or unknown setting, or for one
     *     setting given under both prefixes with different values
     */
    public static Map<String, String> clientSettings(
            final CaseInsensitiveStringMap options, final boolean consumer, final Map<String, String> refused) {
        final Map<String, String> raw = new TreeMap<>();
        for (final Map.Entry<String, String> option : options.entrySet()) {
            final String key = option.getKey().toLowerCase(Locale.ROOT);
            final String name;
            if (key.startsWith(ISTHMUS_PREFIX)) {
                name = key.substring(ISTHMUS_PREFIX.length());
            } else if (key.startsWith(KAFKA_PREFIX)) {
                name = key.substring(KAFKA_PREFIX.length());
            } else {
                continue;
            }
            final String reason = refused.get(name);
            if (reason != null) {
                throw new IllegalArgumentException("option '" + option.getKey() + "' is not supported: " + reason);
            }
            final String previous = raw.put(name, option.getValue());
            if (previous != null && !previous.equals(option.getValue())) {
                throw new IllegalArgumentException("options '" + ISTHMUS_PREFIX + name + "' and '" + KAFKA_PREFIX + name
                        + "' disagree: " + previous + " vs " + option.getValue());
            }
        }
        if (!raw.containsKey(BOOTSTRAP_SERVERS)) {
            throw new IllegalArgumentException(
                    "option '" + ISTHMUS_PREFIX + BOOTSTRAP_SERVERS + "' (or '" + KAFKA_PREFIX + BOOTSTRAP_SERVERS
                            + "') must be specified: the brokers to connect to, host:port[,host:port]");
        }
        final KafkaSettings.Translated translated =
                consumer ? KafkaSettings.forConsumer(raw) : KafkaSettings.forProducer(raw);
        final Map<String, String> settings = new TreeMap<>();
        translated.settings().forEach((key, value) -> settings.put(key, String.valueOf(value)));
        return settings;
    }

    /** A whole-number option, or {@code defaultValue}; refuses one outside {@code [min, max]} naming it. */
    public static long longOption(
            final CaseInsensitiveStringMap options,
            final String name,
            final long defaultValue,
            final long min,
            final long max) {
        final String text = options.get(name);
        if (text == null) {
            return defaultValue;
        }
        final long value;
        try {
            value = Long.parseLong(text.trim());
        } catch (final NumberFormatException e) {
            throw new IllegalArgumentException("option '" + name + "' must be a whole number, got '" + text + "'", e);
        }
        if (value < min || value > max) {
            throw new IllegalArgumentException(
                    "option '" + name + "' must be in [" + min + ", " + max + "], got " + value);
        }
        return value;
    }

    /** A boolean option: only {@code true} or {@code false}, as Spark's Kafka source accepts. */
    public static boolean booleanOption(
            final CaseInsensitiveStringMap options, final String name, final boolean defaultValue) {
        final String text = options.get(name);
        if (text == null) {
            return defaultValue;
        }
        final String value = text.trim().toLowerCase(Locale.ROOT);
        if (!Set.of("true", "false").contains(value)) {
            throw new IllegalArgumentException("option '" + name + "' must be true or false, got '" + text + "'");
        }
        return value.equals("true");
    }
}
