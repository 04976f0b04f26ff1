package io.isthmus.connector.flink.source.enumerator.subscriber;

import io.isthmus.client.admin.IsthmusAdmin;
import io.isthmus.client.admin.TopicDescription;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;

/** A fixed set of partitions, each checked to exist. */
final class PartitionSetSubscriber implements IsthmusSubscriber {
    private static final long serialVersionUID = 1L;

    private final HashSet<TopicPartition> partitions;

    PartitionSetSubscriber(final Set<TopicPartition> partitions) {
        if (partitions.isEmpty()) {
            throw new IllegalArgumentException("a partition subscription needs at least one partition");
        }
        this.partitions = new HashSet<>(partitions);
    }

    @Override
    public Set<TopicPartition> subscribedPartitions(final IsthmusAdmin admin) {
        final Set<String> topics = new TreeSet<>();
        for (final TopicPartition partition : partitions) {
            topics.add(partition.topic());
        }
        final Map<String, TopicDescription> described = admin.describeTopics(topics);
        for (final TopicPartition partition : partitions) {
            final int count = described.get(partition.topic()).partitionCount();
            if (partition.partition() < 0 || partition.partition() >= count) {
                throw new IllegalStateException("subscribed partition does not exist: partition=" + partition
                        + ", partitions of the topic=" + count);
            }
        }
        return new HashSet<>(partitions);
    }

    @Override
    public String toString() {
        return "partitions" + partitions;
    }
}
