package io.isthmus.metadata.image;

import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.Uuid;

/**
 * A topic: its name, its id, and each partition's state by partition index.
 */
public record TopicImage(String name, Uuid id, List<PartitionState> partitions) {
    public TopicImage {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(id, "id");
        partitions = List.copyOf(partitions);
    }

    public PartitionState partition(int index) {
        return partitions.get(index);
    }

    /** This topic with one partition's state replaced. */
    public TopicImage withPartition(int index, PartitionState state) {
        if (partitions.get(index).equals(state)) {
            return this;
        }
        PartitionState[] next = partitions.toArray(PartitionState[]::new);
        next[index] = state;
        return new TopicImage(name, id, List.of(next));
    }
}
