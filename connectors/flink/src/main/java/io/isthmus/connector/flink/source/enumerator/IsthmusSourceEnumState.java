package io.isthmus.connector.flink.source.enumerator;

import io.isthmus.connector.flink.source.split.IsthmusPartitionSplit;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * What the enumerator keeps in a checkpoint: the partitions already handed to readers (their progress lives in the
 * readers' state), the splits made but not handed out yet, and whether the first discovery finished (after it, new
 * partitions start at the earliest offset, whatever the configured start).
 */
public record IsthmusSourceEnumState(
        Set<TopicPartition> assignedPartitions,
        Set<IsthmusPartitionSplit> unassignedSplits,
        boolean initialDiscoveryFinished) {
    public IsthmusSourceEnumState {
        assignedPartitions = Set.copyOf(assignedPartitions);
        unassignedSplits = Set.copyOf(unassignedSplits);
    }
}
