package io.isthmus.connector.flink.source.enumerator.subscriber;

import io.isthmus.client.admin.IsthmusAdmin;
import java.io.Serializable;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.kafka.common.TopicPartition;

/**
 * Which partitions a source reads, asked again at every partition discovery: Kafka's {@code KafkaSubscriber}, with its
 * three kinds.
 */
public interface IsthmusSubscriber extends Serializable {
    /** The partitions subscribed to now. */
    Set<TopicPartition> subscribedPartitions(IsthmusAdmin admin);

    /** Every partition of these topics; a topic that does not exist fails the discovery. */
    static IsthmusSubscriber topics(final List<String> topics) {
        return new TopicListSubscriber(topics);
    }

    /** Every partition of every topic whose whole name matches, including topics created while the job runs. */
    static IsthmusSubscriber pattern(final Pattern pattern) {
        return new TopicPatternSubscriber(pattern);
    }

    /** Exactly these partitions; one that does not exist fails the discovery. */
    static IsthmusSubscriber partitions(final Set<TopicPartition> partitions) {
        return new PartitionSetSubscriber(partitions);
    }
}
