package io.isthmus.connector.spark.source;

import io.isthmus.client.consumer.ConsumerConfig;
import io.isthmus.connector.spark.IsthmusOptions;
import java.io.Serializable;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.spark.network.util.JavaUtils;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The read options of a query, parsed and checked on the driver before anything runs, so that a mistake fails the
 * query with an {@link IllegalArgumentException} naming the option. Names and defaults are Spark's Kafka source's.
 *
 * @param consumerSettings the isthmus consumer's settings, {@code isthmus.}/{@code kafka.} taken off
 * @param subscription which partitions
 * @param startingStream where a new streaming query starts ({@code startingOffsets}, default latest)
 * @param startingBatch where a batch read starts (default earliest)
 * @param endingBatch where a batch read ends (default latest)
 * @param endingGiven whether an ending option was given (refused for a stream)
 * @param maxOffsetsPerTrigger at most this many offsets per micro-batch, -1 for no limit
 * @param minOffsetsPerTrigger wait for this many new offsets before a micro-batch, -1 for no minimum
 * @param maxTriggerDelayMs with a minimum, run a micro-batch anyway after this long
 * @param minPartitions at least this many Spark partitions per batch, -1 for one per log partition
 * @param failOnDataLoss fail where offsets a query needed are gone (retention, deleted topic), else skip with a warning
 * @param includeHeaders whether rows have the {@code headers} column
 * @param groupId the group id the query's consumers carry: {@code kafka.group.id} if given, else {@code
 *     groupIdPrefix} and a random id, as Spark's Kafka source names its consumers' group
 * @param pollTimeoutMs how long an executor waits for records it knows exist before failing the task
 * @param fetchOffsetRetries how often the driver retries a failed offset lookup
 * @param fetchOffsetRetryIntervalMs the pause between those retries
 */
public record ReadOptions(
        Map<String, String> consumerSettings,
        SubscriptionStrategy subscription,
        OffsetSpec startingStream,
        OffsetSpec startingBatch,
        OffsetSpec endingBatch,
        boolean endingGiven,
        long maxOffsetsPerTrigger,
        long minOffsetsPerTrigger,
        long maxTriggerDelayMs,
        int minPartitions,
        boolean failOnDataLoss,
        boolean includeHeaders,
        String groupId,
        long pollTimeoutMs,
        int fetchOffsetRetries,
        long fetchOffsetRetryIntervalMs)
        implements Serializable {

    /** Settings the connector owns on its consumers, with the reason a user may not set them (Spark's wording). */
    private static final Map<String, String> REFUSED = Map.of(
            ConsumerConfig.AUTO_OFFSET_RESET,
            "set the source option 'startingOffsets' instead; where a query resumes is its checkpoint's",
            ConsumerConfig.ENABLE_AUTO_COMMIT,
            "the query's offsets live in its checkpoint, nothing is committed to a group",
            "key.deserializer",
            "keys always arrive as binary; cast or use a DataFrame operation to turn them into something else",
            "value.deserializer",
            "values always arrive as binary; cast or use a DataFrame operation to turn them into something else",
            "interceptor.classes",
            "records are read in place as rows, no consumer interceptor sees them");

    /** Parses and checks {@code options}. */
    public static ReadOptions parse(final CaseInsensitiveStringMap options) {
        final Map<String, String> consumer = IsthmusOptions.clientSettings(options, true, REFUSED);
        final SubscriptionStrategy subscription = SubscriptionStrategy.parse(
                options.get(IsthmusOptions.ASSIGN),
                options.get(IsthmusOptions.SUBSCRIBE),
                options.get(IsthmusOptions.SUBSCRIBE_PATTERN));
        final OffsetSpec.NoOffsetStrategy strategy = OffsetSpec.NoOffsetStrategy.parse(
                options.get(IsthmusOptions.STARTING_OFFSETS_BY_TIMESTAMP_STRATEGY),
                IsthmusOptions.STARTING_OFFSETS_BY_TIMESTAMP_STRATEGY);
        final String starting = options.get(IsthmusOptions.STARTING_OFFSETS);
        final String startingByTimestamp = options.get(IsthmusOptions.STARTING_OFFSETS_BY_TIMESTAMP);
        final String startingTimestamp = options.get(IsthmusOptions.STARTING_TIMESTAMP);
        final OffsetSpec startingStream = OffsetSpec.parse(
                "starting", starting, startingByTimestamp, startingTimestamp, strategy, new OffsetSpec.Latest(), 0);
        final OffsetSpec startingBatch = OffsetSpec.parse(
                "starting",
                starting,
                startingByTimestamp,
                startingTimestamp,
                strategy,
                new OffsetSpec.Earliest(),
                OffsetSpec.LATEST);
        final String ending = options.get(IsthmusOptions.ENDING_OFFSETS);
        final String endingByTimestamp = options.get(IsthmusOptions.ENDING_OFFSETS_BY_TIMESTAMP);
        final String endingTimestamp = options.get(IsthmusOptions.ENDING_TIMESTAMP);
        // Ending offsets by timestamp take the latest offset where no record is that late: the read ends at the end.
        final OffsetSpec endingBatch = OffsetSpec.parse(
                "ending",
                ending,
                endingByTimestamp,
                endingTimestamp,
                OffsetSpec.NoOffsetStrategy.LATEST,
                new OffsetSpec.Latest(),
                OffsetSpec.EARLIEST);
        final long maxOffsets =
                IsthmusOptions.longOption(options, IsthmusOptions.MAX_OFFSETS_PER_TRIGGER, -1, 1, Long.MAX_VALUE);
        final long minOffsets =
                IsthmusOptions.longOption(options, IsthmusOptions.MIN_OFFSETS_PER_TRIGGER, -1, 1, Long.MAX_VALUE);
        if (maxOffsets > 0 && minOffsets > maxOffsets) {
            throw new IllegalArgumentException("option '" + IsthmusOptions.MIN_OFFSETS_PER_TRIGGER + "' (" + minOffsets
                    + ") must not exceed '" + IsthmusOptions.MAX_OFFSETS_PER_TRIGGER + "' (" + maxOffsets + ")");
        }
        final String groupId = consumer.getOrDefault(
                ConsumerConfig.GROUP_ID,
                options.getOrDefault(IsthmusOptions.GROUP_ID_PREFIX, "spark-isthmus-source") + "-" + UUID.randomUUID());
        return new ReadOptions(
                Map.copyOf(consumer),
                subscription,
                startingStream,
                startingBatch,
                endingBatch,
                ending != null || endingByTimestamp != null || endingTimestamp != null,
                maxOffsets,
                minOffsets,
                maxTriggerDelayMs(options.get(IsthmusOptions.MAX_TRIGGER_DELAY)),
                (int) IsthmusOptions.longOption(options, IsthmusOptions.MIN_PARTITIONS, -1, 1, Integer.MAX_VALUE),
                IsthmusOptions.booleanOption(options, IsthmusOptions.FAIL_ON_DATA_LOSS, true),
                IsthmusOptions.booleanOption(options, IsthmusOptions.INCLUDE_HEADERS, false),
                groupId,
                IsthmusOptions.longOption(options, IsthmusOptions.POLL_TIMEOUT_MS, 120_000, 1, Long.MAX_VALUE),
                (int) IsthmusOptions.longOption(options, IsthmusOptions.FETCH_OFFSET_NUM_RETRIES, 3, 0, 1_000),
                IsthmusOptions.longOption(options, IsthmusOptions.FETCH_OFFSET_RETRY_INTERVAL_MS, 1_000, 0, 3_600_000));
    }

    /** Spark's {@code maxTriggerDelay} default: a micro-batch waits at most 15 minutes for its minimum. */
    private static final String DEFAULT_MAX_TRIGGER_DELAY = "15m";

    /** A duration as Spark writes them ("15m", "30s", "500ms"), read by Spark's own parser. */
    private static long maxTriggerDelayMs(final String text) {
        try {
            return JavaUtils.timeStringAsMs(text == null ? DEFAULT_MAX_TRIGGER_DELAY : text);
        } catch (final RuntimeException e) {
            throw new IllegalArgumentException(
                    "option '" + IsthmusOptions.MAX_TRIGGER_DELAY
                            + "' must be a duration such as 15m, 30s or 500ms, got '" + text + "'",
                    e);
        }
    }

    /** The settings of the executors' consumers: the user's, with the query's group id. */
    public Map<String, String> executorConsumerSettings() {
        final Map<String, String> settings = new TreeMap<>(consumerSettings);
        settings.put(ConsumerConfig.GROUP_ID, groupId);
        return settings;
    }
}
