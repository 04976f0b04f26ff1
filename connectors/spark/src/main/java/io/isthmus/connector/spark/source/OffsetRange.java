package io.isthmus.connector.spark.source;

import java.io.Serializable;
import org.apache.kafka.common.TopicPartition;

/**
 * The offsets {@code [from, until)} of one partition that one Spark task reads.
 *
 * @param partition the log partition
 * @param from the first offset
 * @param until the offset after the last
 */
public record OffsetRange(TopicPartition partition, long from, long until) implements Serializable {
    public OffsetRange {
        if (from < 0 || until < from) {
            throw new IllegalArgumentException("offset range must have 0 <= from <= until: partition=" + partition
                    + ", from=" + from + ", until=" + until);
        }
    }

    /** How many offsets the range spans. */
    public long size() {
        return until - from;
    }
}
