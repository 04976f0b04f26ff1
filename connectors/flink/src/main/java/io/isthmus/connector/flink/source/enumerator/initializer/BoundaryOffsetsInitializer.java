package io.isthmus.connector.flink.source.enumerator.initializer;

import io.isthmus.client.consumer.ConsumerConfig.OffsetReset;
import java.util.Collection;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/** The start or the end of each partition's log. */
final class BoundaryOffsetsInitializer implements OffsetsInitializer {
    private static final long serialVersionUID = 1L;

    private final boolean earliest;

    BoundaryOffsetsInitializer(final boolean earliest) {
        this.earliest = earliest;
    }

    @Override
    public Map<TopicPartition, Long> getPartitionOffsets(
            final Collection<TopicPartition> partitions, final PartitionOffsetsRetriever retriever) {
        return earliest ? retriever.beginningOffsets(partitions) : retriever.endOffsets(partitions);
    }

    @Override
    public OffsetReset getAutoOffsetResetStrategy() {
        return earliest ? OffsetReset.EARLIEST : OffsetReset.LATEST;
    }

    @Override
    public String toString() {
        return earliest ? "earliest" : "latest";
    }
}
