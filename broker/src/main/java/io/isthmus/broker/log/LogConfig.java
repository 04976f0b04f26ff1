package io.isthmus.broker.log;

import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;

/**
 * Settings of the partition log, under Kafka's names and with Kafka's defaults unless said otherwise.
 *
 * <p>{@code log.preallocate} defaults to {@code true} (Kafka: false): a segment must be mapped at its full size from
 * the start because RDMA producers write into it and the mapping is registered with the NIC once. The file is sized
 * with {@code setLength} either way (sparse on most file systems); the flag is kept for familiarity and is reported
 * back, but the mapping is always full size.
 *
 * @param segmentBytes {@code log.segment.bytes}: capacity of one segment file (positions in the offset index are 32
 *     bit, so at most {@link Integer#MAX_VALUE}).
 * @param rollMs {@code log.roll.ms}: a non-empty active segment older than this is rolled on the next append.
 * @param retentionMs {@code log.retention.ms}: sealed segments whose newest batch is older are deleted; -1 keeps all.
 * @param retentionBytes {@code log.retention.bytes}: oldest sealed segments are deleted while the log is larger; -1
 *     keeps all.
 * @param retentionCheckIntervalMs {@code log.retention.check.interval.ms}: how often {@link LogManager} runs retention.
 * @param indexIntervalBytes {@code log.index.interval.bytes}: bytes appended between two sparse index entries.
 * @param indexSizeMaxBytes {@code log.index.size.max.bytes}: preallocated size of each index file; a full offset index
 *     rolls the segment.
 * @param flushMessages {@code flush.messages}: force the active segment after this many records; {@link Long#MAX_VALUE}
 *     leaves durability to the page cache (the default, as in Kafka).
 * @param flushMs {@code flush.ms}: force the active segment when its oldest unflushed append is older than this.
 * @param flushSchedulerIntervalMs {@code log.flush.scheduler.interval.ms}: how often {@link LogManager} checks {@code
 *     flush.ms} (isthmus default 1000; only used when {@code flush.ms} is finite).
 * @param preallocate {@code log.preallocate}.
 * @param preTouchBytes {@code isthmus.log.pretouch.bytes}: how far ahead of an active segment's tail its pages are
 *     faulted in by a background thread (0: not at all); see {@link SegmentPreToucher}.
 * @param highWatermarkCheckpointIntervalMs {@code replica.high.watermark.checkpoint.interval.ms}: how often {@link
 *     LogManager} writes the high watermarks of replicated partitions to each log directory's checkpoint.
 * @param messageMaxBytes {@code message.max.bytes}: the largest record batch accepted, as sent (compressed or not), as
 *     in Kafka; isthmus also refuses a compressed batch whose records decompress to more (a decompression bomb
 *     costs at most this much memory, and the buffer is given back after the append).
 */
public record LogConfig(
        int segmentBytes,
        long rollMs,
        long retentionMs,
        long retentionBytes,
        long retentionCheckIntervalMs,
        int indexIntervalBytes,
        int indexSizeMaxBytes,
        long flushMessages,
        long flushMs,
        long flushSchedulerIntervalMs,
        boolean preallocate,
        long preTouchBytes,
        long highWatermarkCheckpointIntervalMs,
        int messageMaxBytes) {

    public static final String SEGMENT_BYTES = "log.segment.bytes";
    public static final String ROLL_MS = "log.roll.ms";
    public static final String RETENTION_MS = "log.retention.ms";
    public static final String RETENTION_BYTES = "log.retention.bytes";
    public static final String RETENTION_CHECK_INTERVAL_MS = "log.retention.check.interval.ms";
    public static final String INDEX_INTERVAL_BYTES = "log.index.interval.bytes";
    public static final String INDEX_SIZE_MAX_BYTES = "log.index.size.max.bytes";
    public static final String FLUSH_MESSAGES = "flush.messages";
    public static final String FLUSH_MS = "flush.ms";
    public static final String FLUSH_SCHEDULER_INTERVAL_MS = "log.flush.scheduler.interval.ms";
    public static final String PREALLOCATE = "log.preallocate";
    /** isthmus only (Kafka has no such setting): see {@link SegmentPreToucher}. */
    public static final String PRETOUCH_BYTES = "isthmus.log.pretouch.bytes";

    public static final String MESSAGE_MAX_BYTES = "message.max.bytes";

    public static final String HIGH_WATERMARK_CHECKPOINT_INTERVAL_MS = "replica.high.watermark.checkpoint.interval.ms";

    public static final int DEFAULT_SEGMENT_BYTES = 1 << 30;
    public static final long DEFAULT_ROLL_MS = 7L * 24 * 60 * 60 * 1000;
    public static final long DEFAULT_RETENTION_MS = 7L * 24 * 60 * 60 * 1000;
    public static final long DEFAULT_RETENTION_BYTES = -1L;
    public static final long DEFAULT_RETENTION_CHECK_INTERVAL_MS = 5L * 60 * 1000;
    public static final int DEFAULT_INDEX_INTERVAL_BYTES = 4096;
    public static final int DEFAULT_INDEX_SIZE_MAX_BYTES = 10 * 1024 * 1024;
    public static final long DEFAULT_FLUSH_MESSAGES = Long.MAX_VALUE;
    public static final long DEFAULT_FLUSH_MS = Long.MAX_VALUE;
    public static final long DEFAULT_FLUSH_SCHEDULER_INTERVAL_MS = 1000L;
    public static final boolean DEFAULT_PREALLOCATE = true;
    public static final long DEFAULT_PRETOUCH_BYTES = 16L * 1024 * 1024;
    public static final long DEFAULT_HIGH_WATERMARK_CHECKPOINT_INTERVAL_MS = 5000L;
    /** Kafka's default: 1 MiB and the 12 bytes of a batch's offset and length fields. */
    public static final int DEFAULT_MESSAGE_MAX_BYTES = 1024 * 1024 + 12;

    /** Smallest legal segment: room for a few small batches (tests use segments this small to force rolls). */
    public static final int MIN_SEGMENT_BYTES = 1024;

    /** Smallest legal index: room for a handful of entries of the larger (time) index. */
    public static final int MIN_INDEX_SIZE_MAX_BYTES = 4 * TimeIndexDescriptor.ENTRY_LENGTH;

    /**
     * The log's settings as one table, for {@code ./isthmus broker --help-config} and to tell a setting the broker
     * does not know from one it does. Parsing and validation stay in {@link #from}, with the same defaults.
     */
    public static final ConfigDef DEFINITION = new ConfigDef()
            .define(
                    SEGMENT_BYTES,
                    Type.INT,
                    DEFAULT_SEGMENT_BYTES,
                    Importance.HIGH,
                    "Segment size; segments are preallocated and mapped at this size.")
            .define(
                    ROLL_MS,
                    Type.LONG,
                    DEFAULT_ROLL_MS,
                    Importance.MEDIUM,
                    "Roll a non-empty active segment older than this.")
            .define(
                    RETENTION_MS,
                    Type.LONG,
                    DEFAULT_RETENTION_MS,
                    Importance.HIGH,
                    "Delete whole sealed segments older than this (-1: never).")
            .define(
                    RETENTION_BYTES,
                    Type.LONG,
                    DEFAULT_RETENTION_BYTES,
                    Importance.HIGH,
                    "Delete whole sealed segments while the partition is larger than this (-1: never).")
            .define(
                    RETENTION_CHECK_INTERVAL_MS,
                    Type.LONG,
                    DEFAULT_RETENTION_CHECK_INTERVAL_MS,
                    Importance.LOW,
                    "How often retention runs.")
            .define(
                    INDEX_INTERVAL_BYTES,
                    Type.INT,
                    DEFAULT_INDEX_INTERVAL_BYTES,
                    Importance.LOW,
                    "Bytes of log between two entries of the sparse offset and time indexes.")
            .define(
                    INDEX_SIZE_MAX_BYTES,
                    Type.INT,
                    DEFAULT_INDEX_SIZE_MAX_BYTES,
                    Importance.LOW,
                    "Size of each index file; a full index rolls the segment.")
            .define(
                    FLUSH_MESSAGES,
                    Type.LONG,
                    DEFAULT_FLUSH_MESSAGES,
                    Importance.MEDIUM,
                    "Force the active segment to disk after this many records (by default the page cache is"
                            + " trusted, which survives a crash of the broker process).")
            .define(
                    FLUSH_MS,
                    Type.LONG,
                    DEFAULT_FLUSH_MS,
                    Importance.MEDIUM,
                    "Force the active segment to disk after this long.")
            .define(
                    FLUSH_SCHEDULER_INTERVAL_MS,
                    Type.LONG,
                    DEFAULT_FLUSH_SCHEDULER_INTERVAL_MS,
                    Importance.LOW,
                    "How often time-based flushes are checked.")
            .define(
                    PREALLOCATE,
                    Type.BOOLEAN,
                    DEFAULT_PREALLOCATE,
                    Importance.LOW,
                    "Accepted for familiarity (Kafka's default is false): segments are always mapped at full size,"
                            + " since RDMA producers write into the mapping registered once.")
            .define(
                    PRETOUCH_BYTES,
                    Type.LONG,
                    DEFAULT_PRETOUCH_BYTES,
                    Importance.LOW,
                    "isthmus only: how far ahead of each active segment's tail a background thread faults pages"
                            + " in, so appends take no page faults (0: off).")
            .define(
                    MESSAGE_MAX_BYTES,
                    Type.INT,
                    DEFAULT_MESSAGE_MAX_BYTES,
                    Importance.HIGH,
                    "The largest record batch accepted, as sent, and the most a compressed batch may decompress"
                            + " to (MESSAGE_TOO_LARGE beyond).")
            .define(
                    HIGH_WATERMARK_CHECKPOINT_INTERVAL_MS,
                    Type.LONG,
                    DEFAULT_HIGH_WATERMARK_CHECKPOINT_INTERVAL_MS,
                    Importance.LOW,
                    "How often each log directory's replication-offset-checkpoint gets the high watermarks of its"
                            + " replicated partitions (also written at shutdown, read at start).");

    public LogConfig {
        requireAtLeast(SEGMENT_BYTES, segmentBytes, MIN_SEGMENT_BYTES);
        requireAtLeast(ROLL_MS, rollMs, 1);
        requireRetention(RETENTION_MS, retentionMs);
        requireRetention(RETENTION_BYTES, retentionBytes);
        requireAtLeast(RETENTION_CHECK_INTERVAL_MS, retentionCheckIntervalMs, 1);
        requireAtLeast(INDEX_INTERVAL_BYTES, indexIntervalBytes, 0);
        requireAtLeast(INDEX_SIZE_MAX_BYTES, indexSizeMaxBytes, MIN_INDEX_SIZE_MAX_BYTES);
        requireAtLeast(FLUSH_MESSAGES, flushMessages, 1);
        requireAtLeast(FLUSH_MS, flushMs, 0);
        requireAtLeast(FLUSH_SCHEDULER_INTERVAL_MS, flushSchedulerIntervalMs, 1);
        requireAtLeast(PRETOUCH_BYTES, preTouchBytes, 0);
        requireAtLeast(HIGH_WATERMARK_CHECKPOINT_INTERVAL_MS, highWatermarkCheckpointIntervalMs, 1);
        requireAtLeast(MESSAGE_MAX_BYTES, messageMaxBytes, 1);
    }

    /** All defaults. */
    public static LogConfig defaults() {
        return from(Map.of());
    }

    /**
     * Parses the log settings from a broker or topic configuration map. Keys this record does not know are ignored
     * (the map usually holds the whole broker configuration); a known key with an illegal value throws {@link
     * LogConfigException}.
     */
    public static LogConfig from(final Map<String, String> props) {
        return new LogConfig(
                intValue(props, SEGMENT_BYTES, DEFAULT_SEGMENT_BYTES),
                longValue(props, ROLL_MS, DEFAULT_ROLL_MS),
                longValue(props, RETENTION_MS, DEFAULT_RETENTION_MS),
                longValue(props, RETENTION_BYTES, DEFAULT_RETENTION_BYTES),
                longValue(props, RETENTION_CHECK_INTERVAL_MS, DEFAULT_RETENTION_CHECK_INTERVAL_MS),
                intValue(props, INDEX_INTERVAL_BYTES, DEFAULT_INDEX_INTERVAL_BYTES),
                intValue(props, INDEX_SIZE_MAX_BYTES, DEFAULT_INDEX_SIZE_MAX_BYTES),
                longValue(props, FLUSH_MESSAGES, DEFAULT_FLUSH_MESSAGES),
                longValue(props, FLUSH_MS, DEFAULT_FLUSH_MS),
                longValue(props, FLUSH_SCHEDULER_INTERVAL_MS, DEFAULT_FLUSH_SCHEDULER_INTERVAL_MS),
                booleanValue(props, PREALLOCATE, DEFAULT_PREALLOCATE),
                longValue(props, PRETOUCH_BYTES, DEFAULT_PRETOUCH_BYTES),
                longValue(props, HIGH_WATERMARK_CHECKPOINT_INTERVAL_MS, DEFAULT_HIGH_WATERMARK_CHECKPOINT_INTERVAL_MS),
                intValue(props, MESSAGE_MAX_BYTES, DEFAULT_MESSAGE_MAX_BYTES));
    }

    /** True when neither {@code flush.messages} nor {@code flush.ms} asks for explicit flushes. */
    public boolean flushLeftToPageCache() {
        return flushMessages == Long.MAX_VALUE && flushMs == Long.MAX_VALUE;
    }

    /** Entries the preallocated offset index can hold. */
    public int maxOffsetIndexEntries() {
        return indexSizeMaxBytes / OffsetIndexDescriptor.ENTRY_LENGTH;
    }

    /** Entries the preallocated time index can hold. */
    public int maxTimeIndexEntries() {
        return indexSizeMaxBytes / TimeIndexDescriptor.ENTRY_LENGTH;
    }

    private static int intValue(final Map<String, String> props, final String key, final int defaultValue) {
        final String raw = props.get(key);
        if (raw == null) {
            return defaultValue;
        }
        try {
            return Integer.parseInt(raw.trim());
        } catch (final NumberFormatException ex) {
            throw new LogConfigException(
                    key, raw, "an integer between " + Integer.MIN_VALUE + " and " + Integer.MAX_VALUE);
        }
    }

    private static long longValue(final Map<String, String> props, final String key, final long defaultValue) {
        final String raw = props.get(key);
        if (raw == null) {
            return defaultValue;
        }
        try {
            return Long.parseLong(raw.trim());
        } catch (final NumberFormatException ex) {
            throw new LogConfigException(key, raw, "a 64-bit integer");
        }
    }

    private static boolean booleanValue(final Map<String, String> props, final String key, final boolean defaultValue) {
        final String raw = props.get(key);
        if (raw == null) {
            return defaultValue;
        }
        final String value = raw.trim();
        if ("true".equalsIgnoreCase(value)) {
            return true;
        }
        if ("false".equalsIgnoreCase(value)) {
            return false;
        }
        throw new LogConfigException(key, raw, "true or false");
    }

    private static void requireAtLeast(final String key, final long value, final long min) {
        if (value < min) {
            throw new LogConfigException(key, Long.toString(value), ">= " + min);
        }
    }

    private static void requireRetention(final String key, final long value) {
        if (value < -1) {
            throw new LogConfigException(key, Long.toString(value), "-1 (unlimited) or >= 0");
        }
    }
}
