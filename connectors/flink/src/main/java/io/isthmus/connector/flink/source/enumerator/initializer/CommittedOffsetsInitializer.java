package io.isthmus.connector.flink.source.enumerator.initializer;

import io.isthmus.client.consumer.ConsumerConfig.OffsetReset;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/** The source group's committed offsets, with a reset strategy for partitions without one. */
final class CommittedOffsetsInitializer implements OffsetsInitializer {
    private static final long serialVersionUID = 1L;

    private final OffsetReset reset;

    CommittedOffsetsInitializer(final OffsetReset reset) {
        this.reset = reset;
    }

    @Override
    public Map<TopicPartition, Long> getPartitionOffsets(
            final Collection<TopicPartition> partitions, final PartitionOffsetsRetriever retriever) {
        final Map<TopicPartition, Long> offsets = new HashMap<>(retriever.committedOffsets(partitions));
        ResetFallback.fill(offsets, partitions, reset, retriever, "committed offset");
        return offsets;
    }

    @Override
    public OffsetReset getAutoOffsetResetStrategy() {
        return reset;
    }

    @Override
    public String toString() {
        return "committedOffsets(reset=" + reset + ")";
    }
}
