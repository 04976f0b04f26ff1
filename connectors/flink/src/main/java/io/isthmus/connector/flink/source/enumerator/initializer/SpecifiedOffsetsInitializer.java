package io.isthmus.connector.flink.source.enumerator.initializer;

import io.isthmus.client.consumer.ConsumerConfig.OffsetReset;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/** Offsets given by the user, with a reset strategy for partitions the map does not name. */
final class SpecifiedOffsetsInitializer implements OffsetsInitializer {
    private static final long serialVersionUID = 1L;

    private final HashMap<TopicPartition, Long> offsets;
    private final OffsetReset reset;

    SpecifiedOffsetsInitializer(final HashMap<TopicPartition, Long> offsets, final OffsetReset reset) {
        for (final Map.Entry<TopicPartition, Long> e : offsets.entrySet()) {
            if (e.getValue() == null || e.getValue() < 0) {
                throw new IllegalArgumentException(
                        "a specified offset must be 0 or more: partition=" + e.getKey() + ", offset=" + e.getValue());
            }
        }
        this.offsets = offsets;
        this.reset = reset;
    }

    @Override
    public Map<TopicPartition, Long> getPartitionOffsets(
            final Collection<TopicPartition> partitions, final PartitionOffsetsRetriever retriever) {
        final Map<TopicPartition, Long> result = new HashMap<>();
        for (final TopicPartition partition : partitions) {
            final Long offset = offsets.get(partition);
            if (offset != null) {
                result.put(partition, offset);
            }
        }
        ResetFallback.fill(result, partitions, reset, retriever, "specified offset");
        return result;
    }

    @Override
    public OffsetReset getAutoOffsetResetStrategy() {
        return reset;
    }

    @Override
    public String toString() {
        return "offsets(" + offsets + ", reset=" + reset + ")";
    }
}
