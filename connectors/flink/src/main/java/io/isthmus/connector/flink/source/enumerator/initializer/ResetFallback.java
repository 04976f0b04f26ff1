package io.isthmus.connector.flink.source.enumerator.initializer;

import io.isthmus.client.consumer.ConsumerConfig.OffsetReset;
import io.isthmus.connector.flink.source.enumerator.initializer.OffsetsInitializer.PartitionOffsetsRetriever;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/** Fills in the partitions an initializer found no offset for, as its reset strategy says. */
final class ResetFallback {
    private ResetFallback() {}

    static void fill(
            final Map<TopicPartition, Long> offsets,
            final Collection<TopicPartition> partitions,
            final OffsetReset reset,
            final PartitionOffsetsRetriever retriever,
            final String what) {
        final List<TopicPartition> missing = new ArrayList<>();
        for (final TopicPartition partition : partitions) {
            if (!offsets.containsKey(partition)) {
                missing.add(partition);
            }
        }
        if (missing.isEmpty()) {
            return;
        }
        switch (reset) {
            case EARLIEST -> offsets.putAll(retriever.beginningOffsets(missing));
            case LATEST -> offsets.putAll(retriever.endOffsets(missing));
            case NONE ->
                throw new IllegalStateException(
                        "no " + what + " for partitions " + missing + " and the reset strategy is NONE");
        }
    }
}
