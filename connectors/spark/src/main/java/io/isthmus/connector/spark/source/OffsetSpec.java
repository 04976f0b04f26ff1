package io.isthmus.connector.spark.source;

import java.io.Serializable;
import java.util.Locale;
import java.util.Map;

/**
 * Where a query starts or a batch read ends, as the options {@code startingOffsets}/{@code endingOffsets}, {@code
 * ...OffsetsByTimestamp} and {@code ...Timestamp} give it; resolved into offsets by {@link PartitionOffsetReader}.
 */
public sealed interface OffsetSpec extends Serializable {
    /** In a JSON offset map, this offset means the partition's earliest offset. */
    long EARLIEST = -2;

    /** In a JSON offset map, this offset means the partition's latest offset. */
    long LATEST = -1;

    /** The log start of every partition. */
    record Earliest() implements OffsetSpec {}

    /** The end (high watermark, or last stable offset for read_committed) of every partition. */
    record Latest() implements OffsetSpec {}

    /** An offset per partition, {@link #EARLIEST} and {@link #LATEST} allowed. */
    record Specific(Map<org.apache.kafka.common.TopicPartition, Long> offsets) implements OffsetSpec {}

    /** The first offset at or after a timestamp, per partition. */
    record ByTimestamp(Map<org.apache.kafka.common.TopicPartition, Long> timestamps, NoOffsetStrategy strategy)
            implements OffsetSpec {}

    /** The first offset at or after one timestamp, in every partition. */
    record GlobalTimestamp(long timestamp, NoOffsetStrategy strategy) implements OffsetSpec {}

    /** What to do where no record is at or after the timestamp: Spark's {@code startingOffsetsByTimestampStrategy}. */
    enum NoOffsetStrategy {
        /** Fail the query (the default). */
        ERROR,
        /** Use the partition's latest offset. */
        LATEST;

        static NoOffsetStrategy parse(final String text, final String option) {
            if (text == null) {
                return ERROR;
            }
            return switch (text.trim().toLowerCase(Locale.ROOT)) {
                case "error" -> ERROR;
                case "latest" -> LATEST;
                default ->
                    throw new IllegalArgumentException(
                            "option '" + option + "' must be 'error' or 'latest', got '" + text + "'");
            };
        }
    }

    /**
     * Parses the options of one side; the timestamp options win over offsets, as in Spark (global timestamp, then
     * per-partition timestamps, then offsets).
     *
     * @param side "starting" or "ending", for messages
     * @param defaultSpec the spec without any option
     * @param refusedSpecial {@link #LATEST} or {@link #EARLIEST} where that value makes no sense on this side, else 0
     */
    static OffsetSpec parse(
            final String side,
            final String offsets,
            final String byTimestamp,
            final String timestamp,
            final NoOffsetStrategy strategy,
            final OffsetSpec defaultSpec,
            final long refusedSpecial) {
        final String offsetsOption = side + "Offsets";
        if (timestamp != null) {
            try {
                return new GlobalTimestamp(Long.parseLong(timestamp.trim()), strategy);
            } catch (final NumberFormatException e) {
                throw new IllegalArgumentException(
                        "option '" + side + "Timestamp' must be milliseconds since the epoch, got '" + timestamp + "'",
                        e);
            }
        }
        if (byTimestamp != null) {
            return new ByTimestamp(
                    OffsetsJson.readOffsets(byTimestamp, "option '" + side + "OffsetsByTimestamp'"), strategy);
        }
        if (offsets == null) {
            return defaultSpec;
        }
        final String text = offsets.trim();
        final String lower = text.toLowerCase(Locale.ROOT);
        final OffsetSpec spec;
        if (lower.equals("earliest")) {
            spec = new Earliest();
        } else if (lower.equals("latest")) {
            spec = new Latest();
        } else {
            final Map<org.apache.kafka.common.TopicPartition, Long> parsed =
                    OffsetsJson.readOffsets(text, "option '" + offsetsOption + "'");
            parsed.forEach((partition, offset) -> {
                if (offset < EARLIEST) {
                    throw new IllegalArgumentException("option '" + offsetsOption + "': offset " + offset + " of "
                            + partition + " is neither an offset nor -2 (earliest) or -1 (latest)");
                }
                if (refusedSpecial != 0 && offset == refusedSpecial) {
                    throw new IllegalArgumentException("option '" + offsetsOption + "': "
                            + (refusedSpecial == LATEST ? "latest (-1)" : "earliest (-2)") + " for " + partition
                            + " is not allowed on the " + side + " side");
                }
            });
            spec = new Specific(parsed);
        }
        if (refusedSpecial == LATEST && spec instanceof Latest
                || refusedSpecial == EARLIEST && spec instanceof Earliest) {
            throw new IllegalArgumentException("option '" + offsetsOption + "' = '" + text
                    + "' is not allowed for a batch read's " + side + " offsets");
        }
        return spec;
    }
}
