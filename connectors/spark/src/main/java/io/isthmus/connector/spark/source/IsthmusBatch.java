package io.isthmus.connector.spark.source;

import io.isthmus.connector.spark.IsthmusOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.types.StructType;

/**
 * A batch read, {@code spark.read.format("isthmus")}: the offsets between the starting and the ending options, both
 * resolved once, when the query is planned.
 */
final class IsthmusBatch implements Batch {
    private final ReadOptions options;
    private final StructType schema;

    IsthmusBatch(final ReadOptions options, final StructType schema) {
        this.options = options;
        this.schema = schema;
    }

    @Override
    public InputPartition[] planInputPartitions() {
        final List<OffsetRange> ranges = new ArrayList<>();
        try (PartitionOffsetReader reader = new PartitionOffsetReader(options)) {
            final Set<TopicPartition> partitions = reader.partitions();
            final Map<TopicPartition, Long> from =
                    reader.resolve(options.startingBatch(), partitions, IsthmusOptions.STARTING_OFFSETS);
            final Map<TopicPartition, Long> until =
                    reader.resolve(options.endingBatch(), partitions, IsthmusOptions.ENDING_OFFSETS);
            for (final TopicPartition partition : partitions) {
                final long start = from.get(partition);
                final long end = until.get(partition);
                if (end < start) {
                    throw new IllegalArgumentException("the ending offset " + end + " of " + partition
                            + " is before its starting offset " + start + "; check the starting and ending options");
                }
                ranges.add(new OffsetRange(partition, start, end));
            }
        }
        return InputPartitions.of(OffsetRangePlanner.plan(ranges, options.minPartitions()), options, schema);
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
        return new IsthmusPartitionReaderFactory();
    }
}
