package io.isthmus.connector.flink.source.enumerator.initializer;

import io.isthmus.client.consumer.ConsumerConfig.OffsetReset;
import java.io.Serializable;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * Where splits start or stop, resolved to concrete offsets through the broker when the enumerator makes the splits:
 * Kafka's {@code OffsetsInitializer}, factory for factory ({@link #earliest()}, {@link #latest()}, {@link
 * #committedOffsets()}, {@link #committedOffsets(OffsetReset)}, {@link #offsets(Map)}, {@link #offsets(Map,
 * OffsetReset)}, {@link #timestamp(long)}).
 */
public interface OffsetsInitializer extends Serializable {
    /** The offset of each of {@code partitions}; every partition asked for gets one. */
    Map<TopicPartition, Long> getPartitionOffsets(
            Collection<TopicPartition> partitions, PartitionOffsetsRetriever retriever);

    /** What the consumer does when a split's offset is out of range (retention deleted it, for example). */
    OffsetReset getAutoOffsetResetStrategy();

    /** The broker lookups an initializer may use; answered by the enumerator's admin client. */
    interface PartitionOffsetsRetriever {
        /** Committed offsets of the source's group; partitions without one are absent. */
        Map<TopicPartition, Long> committedOffsets(Collection<TopicPartition> partitions);

        /** Log end offsets (high watermarks). */
        Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions);

        /** Log start offsets. */
        Map<TopicPartition, Long> beginningOffsets(Collection<TopicPartition> partitions);

        /** The first offset whose timestamp is at or after the given one; absent where no record is that late. */
        Map<TopicPartition, Long> offsetsForTimes(Map<TopicPartition, Long> timestamps);
    }

    /** The first offset still in each partition's log. The default start. */
    static OffsetsInitializer earliest() {
        return new BoundaryOffsetsInitializer(true);
    }

    /** The end of each partition's log when the split is made. */
    static OffsetsInitializer latest() {
        return new BoundaryOffsetsInitializer(false);
    }

    /** The group's committed offsets; a partition without one fails the job ({@link OffsetReset#NONE}). */
    static OffsetsInitializer committedOffsets() {
        return committedOffsets(OffsetReset.NONE);
    }

    /** The group's committed offsets; a partition without one starts where {@code reset} says. */
    static OffsetsInitializer committedOffsets(final OffsetReset reset) {
        return new CommittedOffsetsInitializer(reset);
    }

    /** Exactly these offsets; a partition not in the map fails the job. */
    static OffsetsInitializer offsets(final Map<TopicPartition, Long> offsets) {
        return offsets(offsets, OffsetReset.NONE);
    }

    /** These offsets; a partition not in the map starts where {@code reset} says. */
    static OffsetsInitializer offsets(final Map<TopicPartition, Long> offsets, final OffsetReset reset) {
        return new SpecifiedOffsetsInitializer(new HashMap<>(offsets), reset);
    }

    /**
     * The first record at or after {@code timestampMs} (milliseconds since the epoch); where none is that late, the
     * end of the log.
     */
    static OffsetsInitializer timestamp(final long timestampMs) {
        return new TimestampOffsetsInitializer(timestampMs);
    }
}
