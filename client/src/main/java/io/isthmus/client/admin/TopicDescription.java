package io.isthmus.client.admin;

import io.isthmus.client.cluster.PartitionMetadata;
import java.util.List;
import org.apache.kafka.common.Uuid;

/** A topic as {@link IsthmusAdmin#describeTopics} reports it. */
public record TopicDescription(String name, Uuid topicId, boolean internal, List<PartitionMetadata> partitions) {
    public int partitionCount() {
        return partitions.size();
    }
}
