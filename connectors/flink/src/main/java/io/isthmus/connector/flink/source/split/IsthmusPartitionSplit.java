package io.isthmus.connector.flink.source.split;

import java.util.Objects;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.kafka.common.TopicPartition;

/**
 * One partition to read, from a starting offset up to an optional stopping offset (exclusive), as Kafka's {@code
 * KafkaPartitionSplit}. The split id is the partition's {@code topic-partition} name, so a split keeps its identity
 * across checkpoints and rescaling.
 *
 * <p>Offsets are concrete: the enumerator resolves earliest, latest, committed and timestamp starts through the broker
 * before it makes a split, so a restored split never depends on what those words meant at restore time.
 */
public final class IsthmusPartitionSplit implements SourceSplit {
    /** No stopping offset: the split is read for as long as the job runs. */
    public static final long NO_STOPPING_OFFSET = Long.MIN_VALUE;

    private final TopicPartition partition;
    private final long startingOffset;
    private final long stoppingOffset;

    public IsthmusPartitionSplit(final TopicPartition partition, final long startingOffset) {
        this(partition, startingOffset, NO_STOPPING_OFFSET);
    }

    public IsthmusPartitionSplit(final TopicPartition partition, final long startingOffset, final long stoppingOffset) {
        this.partition = Objects.requireNonNull(partition, "partition");
        if (startingOffset < 0) {
            throw new IllegalArgumentException("a split starts at a concrete offset: partition=" + partition
                    + ", startingOffset=" + startingOffset);
        }
        if (stoppingOffset != NO_STOPPING_OFFSET && stoppingOffset < 0) {
            throw new IllegalArgumentException("a split stops at a concrete offset: partition=" + partition
                    + ", stoppingOffset=" + stoppingOffset);
        }
        this.startingOffset = startingOffset;
        this.stoppingOffset = stoppingOffset;
    }

    /** The id of the split of {@code partition}. */
    public static String splitId(final TopicPartition partition) {
        return partition.toString();
    }

    @Override
    public String splitId() {
        return splitId(partition);
    }

    public TopicPartition partition() {
        return partition;
    }

    public long startingOffset() {
        return startingOffset;
    }

    public boolean hasStoppingOffset() {
        return stoppingOffset != NO_STOPPING_OFFSET;
    }

    /** The offset reading stops before, or {@link #NO_STOPPING_OFFSET}. */
    public long stoppingOffset() {
        return stoppingOffset;
    }

    /** The same partition and stop, read on from {@code offset}. */
    public IsthmusPartitionSplit withStartingOffset(final long offset) {
        return new IsthmusPartitionSplit(partition, offset, stoppingOffset);
    }

    @Override
    public boolean equals(final Object o) {
        return o instanceof IsthmusPartitionSplit other
                && partition.equals(other.partition)
                && startingOffset == other.startingOffset
                && stoppingOffset == other.stoppingOffset;
    }

    @Override
    public int hashCode() {
        return Objects.hash(partition, startingOffset, stoppingOffset);
    }

    @Override
    public String toString() {
        return "IsthmusPartitionSplit{" + partition + ", start=" + startingOffset + ", stop="
                + (hasStoppingOffset() ? Long.toString(stoppingOffset) : "none") + '}';
    }
}
