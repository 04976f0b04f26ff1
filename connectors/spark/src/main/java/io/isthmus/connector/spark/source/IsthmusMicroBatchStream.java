package io.isthmus.connector.spark.source;

import io.isthmus.connector.spark.IsthmusOptions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.streaming.CompositeReadLimit;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.connector.read.streaming.Offset;
import org.apache.spark.sql.connector.read.streaming.ReadAllAvailable;
import org.apache.spark.sql.connector.read.streaming.ReadLimit;
import org.apache.spark.sql.connector.read.streaming.ReadMaxRows;
import org.apache.spark.sql.connector.read.streaming.ReadMinRows;
import org.apache.spark.sql.connector.read.streaming.ReportsSourceMetrics;
import org.apache.spark.sql.connector.read.streaming.SupportsTriggerAvailableNow;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A streaming read, {@code spark.readStream.format("isthmus")}, planned on the driver as Spark's Kafka micro-batch
 * stream is: each trigger asks for the subscription's partitions and their latest offsets (new partitions start at
 * their earliest), bounds the batch by the read limit ({@code maxOffsetsPerTrigger}, {@code minOffsetsPerTrigger} with
 * {@code maxTriggerDelay}), and hands the ranges to executors. Offsets are checkpointed by Spark as {@link
 * IsthmusSourceOffset} JSON.
 */
final class IsthmusMicroBatchStream implements MicroBatchStream, SupportsTriggerAvailableNow, ReportsSourceMetrics {
    private static final Logger LOG = LoggerFactory.getLogger(IsthmusMicroBatchStream.class);

    private final ReadOptions options;
    private final StructType schema;
    private final String checkpointLocation;
    private final PartitionOffsetReader reader;
    /** The latest offsets the last trigger saw: what the lag metrics compare against. */
    private volatile SortedMap<TopicPartition, Long> latestSeen;
    /** With Trigger.AvailableNow: the end of what existed when the query started; null otherwise. */
    private SortedMap<TopicPartition, Long> availableNowEnd;

    private long lastTriggerMillis = System.currentTimeMillis();

    IsthmusMicroBatchStream(final ReadOptions options, final StructType schema, final String checkpointLocation) {
        this.options = options;
        this.schema = schema;
        this.checkpointLocation = checkpointLocation;
        this.reader = new PartitionOffsetReader(options);
    }

    @Override
    public Offset initialOffset() {
        return new InitialOffsetLog(
                        checkpointLocation, SparkContext.getOrCreate().hadoopConfiguration())
                .getOrCreate(() -> new IsthmusSourceOffset(reader.resolve(
                        options.startingStream(), reader.partitions(), IsthmusOptions.STARTING_OFFSETS)));
    }

    @Override
    public Offset deserializeOffset(final String json) {
        return IsthmusSourceOffset.fromJson(json);
    }

    @Override
    public ReadLimit getDefaultReadLimit() {
        final ReadLimit max =
                options.maxOffsetsPerTrigger() > 0 ? ReadLimit.maxRows(options.maxOffsetsPerTrigger()) : null;
        if (options.minOffsetsPerTrigger() > 0) {
            final ReadLimit min = ReadLimit.minRows(options.minOffsetsPerTrigger(), options.maxTriggerDelayMs());
            return max == null ? min : ReadLimit.compositeLimit(new ReadLimit[] {min, max});
        }
        return max != null ? max : ReadLimit.allAvailable();
    }

    @Override
    public Offset latestOffset() {
        throw new UnsupportedOperationException(
                "this source takes a read limit: Spark calls latestOffset(Offset, ReadLimit) on it");
    }

    @Override
    public void prepareForTriggerAvailableNow() {
        availableNowEnd = reader.latest(reader.partitions());
        LOG.info("Trigger.AvailableNow: reading up to {}", availableNowEnd);
    }

    @Override
    public Offset latestOffset(final Offset start, final ReadLimit limit) {
        final SortedMap<TopicPartition, Long> startOffsets = ((IsthmusSourceOffset) start).offsets();
        final SortedMap<TopicPartition, Long> latest = reader.latest(reader.partitions());
        latestSeen = latest;
        final SortedMap<TopicPartition, Long> end;
        if (availableNowEnd != null) {
            end = OffsetsJson.sortedMap();
            availableNowEnd.forEach((partition, offset) ->
                    end.put(partition, Math.min(offset, latest.getOrDefault(partition, offset))));
        } else {
            end = latest;
        }
        final Map<TopicPartition, Long> from = fromOffsets(startOffsets, end.keySet());
        long minRows = -1;
        long maxTriggerDelayMs = 0;
        long maxRows = -1;
        for (final ReadLimit part : parts(limit)) {
            if (part instanceof ReadMinRows min) {
                minRows = min.minRows();
                maxTriggerDelayMs = min.maxTriggerDelayMs();
            } else if (part instanceof ReadMaxRows max) {
                maxRows = max.maxRows();
            } else if (!(part instanceof ReadAllAvailable)) {
                throw new IllegalArgumentException("read limit " + part + " is not supported by the isthmus source");
            }
        }
        final long now = System.currentTimeMillis();
        if (minRows > 0) {
            final long available = available(from, end);
            if (available < minRows && now - lastTriggerMillis < maxTriggerDelayMs) {
                LOG.debug("{} new offsets, fewer than {}: no micro-batch yet", available, minRows);
                return start;
            }
            lastTriggerMillis = now;
        }
        final SortedMap<TopicPartition, Long> bounded = maxRows > 0 ? RateLimit.apply(maxRows, from, end) : end;
        return new IsthmusSourceOffset(bounded);
    }

    @Override
    public Offset reportLatestOffset() {
        final SortedMap<TopicPartition, Long> latest = latestSeen;
        return latest == null ? null : new IsthmusSourceOffset(latest);
    }

    private static List<ReadLimit> parts(final ReadLimit limit) {
        return limit instanceof CompositeReadLimit composite ? List.of(composite.getReadLimits()) : List.of(limit);
    }

    private static long available(final Map<TopicPartition, Long> from, final Map<TopicPartition, Long> end) {
        long total = 0;
        for (final Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            total += Math.max(0, e.getValue() - from.getOrDefault(e.getKey(), e.getValue()));
        }
        return total;
    }

    /** Where each partition of {@code partitions} starts: its offset in {@code start}, or its earliest if new. */
    private Map<TopicPartition, Long> fromOffsets(
            final Map<TopicPartition, Long> start, final Set<TopicPartition> partitions) {
        final Map<TopicPartition, Long> from = new HashMap<>(start);
        final Set<TopicPartition> added = new TreeSet<>(OffsetsJson.PARTITION_ORDER);
        added.addAll(partitions);
        added.removeAll(start.keySet());
        if (!added.isEmpty()) {
            from.putAll(reader.earliest(added));
        }
        return from;
    }

    @Override
    public InputPartition[] planInputPartitions(final Offset start, final Offset end) {
        final SortedMap<TopicPartition, Long> startOffsets = ((IsthmusSourceOffset) start).offsets();
        final SortedMap<TopicPartition, Long> endOffsets = ((IsthmusSourceOffset) end).offsets();
        final TreeMap<TopicPartition, Long> added = OffsetsJson.sortedMap();
        final Set<TopicPartition> addedPartitions = new TreeSet<>(OffsetsJson.PARTITION_ORDER);
        addedPartitions.addAll(endOffsets.keySet());
        addedPartitions.removeAll(startOffsets.keySet());
        if (!addedPartitions.isEmpty()) {
            added.putAll(reader.earliest(addedPartitions));
            added.forEach((partition, earliest) -> {
                if (earliest != 0) {
                    reportDataLoss("added partition " + partition + " starts at offset " + earliest + ", not 0");
                }
            });
            LOG.info("partitions added since the last micro-batch, read from their earliest offset: {}", added);
        }
        final Set<TopicPartition> gone = new TreeSet<>(OffsetsJson.PARTITION_ORDER);
        gone.addAll(startOffsets.keySet());
        gone.removeAll(endOffsets.keySet());
        if (!gone.isEmpty()) {
            reportDataLoss("partitions " + gone + " are gone from "
                    + options.subscription().describe());
        }
        final List<OffsetRange> ranges = new ArrayList<>();
        endOffsets.forEach((partition, until) -> {
            final Long known = startOffsets.get(partition);
            final long from = known != null ? known : added.get(partition);
            if (until < from) {
                reportDataLoss("the offset of " + partition + " went back from " + from + " to " + until
                        + " (the topic was deleted and created again?)");
            } else {
                ranges.add(new OffsetRange(partition, from, until));
            }
        });
        return InputPartitions.of(OffsetRangePlanner.plan(ranges, options.minPartitions()), options, schema);
    }

    private void reportDataLoss(final String what) {
        if (options.failOnDataLoss()) {
            throw new IllegalStateException(what + ". Some data may have been lost. If the query should go on"
                    + " instead of failing, set the source option '" + IsthmusOptions.FAIL_ON_DATA_LOSS
                    + "' to 'false'.");
        }
        LOG.warn(
                "{}. Some data may have been lost; going on, as '{}' is false.",
                what,
                IsthmusOptions.FAIL_ON_DATA_LOSS);
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
        return new IsthmusPartitionReaderFactory();
    }

    @Override
    public Map<String, String> metrics(final Optional<Offset> latestConsumedOffset) {
        final SortedMap<TopicPartition, Long> latest = latestSeen;
        if (latest == null || latestConsumedOffset.isEmpty()) {
            return Map.of();
        }
        final Map<TopicPartition, Long> consumed = ((IsthmusSourceOffset) latestConsumedOffset.get()).offsets();
        long min = Long.MAX_VALUE;
        long max = 0;
        long sum = 0;
        int count = 0;
        for (final Map.Entry<TopicPartition, Long> e : latest.entrySet()) {
            final Long at = consumed.get(e.getKey());
            if (at != null) {
                final long behind = Math.max(0, e.getValue() - at);
                min = Math.min(min, behind);
                max = Math.max(max, behind);
                sum += behind;
                count++;
            }
        }
        if (count == 0) {
            return Map.of();
        }
        return Map.of(
                "minOffsetsBehindLatest", Long.toString(min),
                "maxOffsetsBehindLatest", Long.toString(max),
                "avgOffsetsBehindLatest", Double.toString((double) sum / count));
    }

    @Override
    public void commit(final Offset end) {
        // Nothing to do: the query's offsets are its checkpoint's, as with Spark's Kafka source.
    }

    @Override
    public void stop() {
        reader.close();
    }

    @Override
    public String toString() {
        return "IsthmusMicroBatchStream[" + options.subscription().describe() + "]";
    }
}
