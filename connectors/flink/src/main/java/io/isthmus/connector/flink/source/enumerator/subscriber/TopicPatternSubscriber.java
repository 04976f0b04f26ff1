package io.isthmus.connector.flink.source.enumerator.subscriber;

import io.isthmus.client.admin.IsthmusAdmin;
import io.isthmus.client.admin.TopicDescription;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.kafka.common.TopicPartition;

/** Every partition of the topics whose whole name matches a pattern, as they come and go. */
final class TopicPatternSubscriber implements IsthmusSubscriber {
    private static final long serialVersionUID = 1L;

    private final Pattern pattern;

    TopicPatternSubscriber(final Pattern pattern) {
        this.pattern = pattern;
    }

    @Override
    public Set<TopicPartition> subscribedPartitions(final IsthmusAdmin admin) {
        final List<String> matching = new ArrayList<>();
        for (final String topic : admin.listTopics()) {
            if (pattern.matcher(topic).matches()) {
                matching.add(topic);
            }
        }
        final Set<TopicPartition> partitions = new HashSet<>();
        if (matching.isEmpty()) {
            return partitions;
        }
        for (final TopicDescription topic : admin.describeTopics(matching).values()) {
            for (int p = 0; p < topic.partitionCount(); p++) {
                partitions.add(new TopicPartition(topic.name(), p));
            }
        }
        return partitions;
    }

    @Override
    public String toString() {
        return "pattern(" + pattern + ")";
    }
}
