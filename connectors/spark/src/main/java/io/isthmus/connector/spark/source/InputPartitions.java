package io.isthmus.connector.spark.source;

import java.util.List;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.types.StructType;

/** Turns planned ranges into Spark's input partitions, each with what an executor needs to read it. */
final class InputPartitions {
    private InputPartitions() {}

    static InputPartition[] of(final List<OffsetRange> ranges, final ReadOptions options, final StructType schema) {
        final InputPartition[] partitions = new InputPartition[ranges.size()];
        for (int i = 0; i < partitions.length; i++) {
            partitions[i] = new IsthmusInputPartition(
                    ranges.get(i),
                    options.executorConsumerSettings(),
                    options.failOnDataLoss(),
                    schema,
                    options.pollTimeoutMs());
        }
        return partitions;
    }
}
