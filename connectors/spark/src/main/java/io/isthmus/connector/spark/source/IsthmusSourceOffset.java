package io.isthmus.connector.spark.source;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.spark.sql.connector.read.streaming.Offset;

/**
 * A streaming query's position: the next offset of every partition, checkpointed as Spark's Kafka source writes it,
 * {@code {"topic":{"0":23}}}, so people and tools that read those checkpoints read these.
 */
public final class IsthmusSourceOffset extends Offset {
    private final SortedMap<TopicPartition, Long> offsets;

    public IsthmusSourceOffset(final Map<TopicPartition, Long> offsets) {
        final SortedMap<TopicPartition, Long> sorted = OffsetsJson.sortedMap();
        sorted.putAll(offsets);
        this.offsets = Collections.unmodifiableSortedMap(sorted);
    }

    /** Reads a checkpointed offset. */
    public static IsthmusSourceOffset fromJson(final String json) {
        return new IsthmusSourceOffset(OffsetsJson.readOffsets(json, "checkpointed isthmus source offset"));
    }

    /** The next offset per partition, in topic and partition order. */
    public SortedMap<TopicPartition, Long> offsets() {
        return offsets;
    }

    @Override
    public String json() {
        return OffsetsJson.write(offsets);
    }
}
