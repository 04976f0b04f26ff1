package io.isthmus.connector.flink.source.enumerator.subscriber;

import io.isthmus.client.admin.IsthmusAdmin;
import io.isthmus.client.admin.TopicDescription;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/** Every partition of a fixed list of topics. */
final class TopicListSubscriber implements IsthmusSubscriber {
    private static final long serialVersionUID = 1L;

    private final ArrayList<String> topics;

    TopicListSubscriber(final List<String> topics) {
        if (topics.isEmpty()) {
            throw new IllegalArgumentException("a topic subscription needs at least one topic");
        }
        this.topics = new ArrayList<>(topics);
    }

    @Override
    public Set<TopicPartition> subscribedPartitions(final IsthmusAdmin admin) {
        final Set<TopicPartition> partitions = new HashSet<>();
        for (final TopicDescription topic : admin.describeTopics(topics).values()) {
            for (int p = 0; p < topic.partitionCount(); p++) {
                partitions.add(new TopicPartition(topic.name(), p));
            }
        }
        return partitions;
    }

    @Override
    public String toString() {
        return "topics" + topics;
    }
}
