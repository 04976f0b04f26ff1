package io.isthmus.client.cluster;

import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/** A topic as Metadata describes it; {@code partitions.get(i).partition() == i}. */
public record TopicMetadata(
        String name, Uuid topicId, Errors error, boolean internal, List<PartitionMetadata> partitions) {
    public int partitionCount() {
        return partitions.size();
    }

    /** The leader of {@code partition}, or -1 if it has none or does not exist. */
    public int leader(final int partition) {
        return partition < 0 || partition >= partitions.size()
                ? -1
                : partitions.get(partition).leader();
    }
}
