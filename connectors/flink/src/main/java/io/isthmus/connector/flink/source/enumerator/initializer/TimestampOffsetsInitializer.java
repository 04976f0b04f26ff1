package io.isthmus.connector.flink.source.enumerator.initializer;

import io.isthmus.client.consumer.ConsumerConfig.OffsetReset;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/** The first record at or after a timestamp; the end of the log where no record is that late. */
final class TimestampOffsetsInitializer implements OffsetsInitializer {
    private static final long serialVersionUID = 1L;

    private final long timestampMs;

    TimestampOffsetsInitializer(final long timestampMs) {
        if (timestampMs < 0) {
            throw new IllegalArgumentException("a start timestamp must be 0 or more: timestampMs=" + timestampMs);
        }
        this.timestampMs = timestampMs;
    }

    @Override
    public Map<TopicPartition, Long> getPartitionOffsets(
            final Collection<TopicPartition> partitions, final PartitionOffsetsRetriever retriever) {
        final Map<TopicPartition, Long> query = new HashMap<>();
        for (final TopicPartition partition : partitions) {
            query.put(partition, timestampMs);
        }
        final Map<TopicPartition, Long> offsets = new HashMap<>(retriever.offsetsForTimes(query));
        ResetFallback.fill(offsets, partitions, OffsetReset.LATEST, retriever, "record at or after " + timestampMs);
        return offsets;
    }

    /** Out of range later means retention went past the timestamp: go on from the oldest record left. */
    @Override
    public OffsetReset getAutoOffsetResetStrategy() {
        return OffsetReset.EARLIEST;
    }

    @Override
    public String toString() {
        return "timestamp(" + timestampMs + ")";
    }
}
