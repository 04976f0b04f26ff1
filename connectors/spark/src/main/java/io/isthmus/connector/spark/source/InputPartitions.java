package io.isthmus.connector.spark.source;

import java.util.List;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.types.StructType;

/** Turns planned ranges into Spark's input partitions, each with what an executor needs to read it. */
final class InputPartitions {
    private InputPartitions() {}

    static InputPartition[] of(final List<OffsetRange> ranges, final ReadOptions options, final StructType schema) {
        return of(ranges, options, schema, ExecutorLocations.sorted());
    }

    /** {@link #of(List, ReadOptions, StructType)} with the application's executors given ({@link ExecutorLocations}). */
    static InputPartition[] of(
            final List<OffsetRange> ranges,
            final ReadOptions options,
            final StructType schema,
            final List<String> executors) {
        final String[][] locations = ExecutorLocations.preferred(ranges, executors);
        final InputPartition[] partitions = new InputPartition[ranges.size()];
        for (int i = 0; i < partitions.length; i++) {
            partitions[i] = new IsthmusInputPartition(
                    ranges.get(i),
                    options.executorConsumerSettings(),
                    options.failOnDataLoss(),
                    schema,
                    options.pollTimeoutMs(),
                    locations[i]);
        }
        return partitions;
    }
}
