package io.isthmus.connector.spark.source;

import java.util.Map;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.types.StructType;

/**
 * One Spark task's work: a range of one partition and how to read it. Serialized from the driver to an executor.
 *
 * @param range the offsets to read
 * @param consumerSettings the consumer's settings (the executor's cached consumer for the same settings and partition
 *     is reused)
 * @param failOnDataLoss whether offsets of the range that are gone fail the task
 * @param schema the record columns the query reads (Kafka's row schema, pruned)
 * @param pollTimeoutMs how long to wait for records the range says exist
 * @param locations the executor whose cached consumer read this partition before, or none ({@link
 *     ExecutorLocations})
 */
public record IsthmusInputPartition(
        OffsetRange range,
        Map<String, String> consumerSettings,
        boolean failOnDataLoss,
        StructType schema,
        long pollTimeoutMs,
        String[] locations)
        implements InputPartition {
    /** Spark's hint where to run this task: {@link #locations()}. */
    @Override
    public String[] preferredLocations() {
        return locations.clone();
    }
}
