package io.isthmus.metadata.controller;

import io.isthmus.metadata.image.BrokerRegistration;
import io.isthmus.metadata.image.ClusterImage;
import io.isthmus.metadata.image.PartitionState;
import io.isthmus.metadata.image.TopicImage;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/**
 * The controller's working state while it applies a command: brokers and topics in sorted maps, and the changes
 * every kind of command shares (fencing, finding a topic, checking a replica list).
 *
 * <p>Sorted, so that anything that iterates (placement, fencing every partition) does so in the same order on every
 * voter.
 */
final class ClusterState {
    final TreeMap<Integer, BrokerRegistration> brokers = new TreeMap<>();
    final TreeMap<String, TopicImage> topics = new TreeMap<>();

    void restore(ClusterImage image) {
        brokers.clear();
        brokers.putAll(image.brokers());
        topics.clear();
        topics.putAll(image.topics());
    }

    ClusterImage toImage(long appliedIndex) {
        return new ClusterImage(appliedIndex, brokers, topics);
    }

    boolean isUnfenced(int broker) {
        BrokerRegistration b = brokers.get(broker);
        return b != null && !b.fenced();
    }

    /** Unfenced broker ids, ascending. */
    List<Integer> unfencedBrokers() {
        return brokers.values().stream()
                .filter(b -> !b.fenced())
                .map(BrokerRegistration::id)
                .toList();
    }

    TopicImage topicById(Uuid id) {
        for (TopicImage t : topics.values()) {
            if (t.id().equals(id)) {
                return t;
            }
        }
        return null;
    }

    void replacePartition(TopicImage topic, int index, PartitionState state) {
        topics.put(topic.name(), topics.get(topic.name()).withPartition(index, state));
    }

    /**
     * Fences a broker by the command at log {@code index}: it leaves every ISR it can leave, and its leaderships go to
     * the next in-sync replica.
     */
    void fence(int broker, long index) {
        BrokerRegistration b = brokers.get(broker);
        if (b.fenced()) {
            return;
        }
        brokers.put(broker, b.fencedBy(index));
        updatePartitions(p -> PartitionLeadership.afterFence(p, broker, this::isUnfenced));
    }

    /** Unfences a broker: it takes the lead of leaderless partitions whose last in-sync replica it is. */
    void unfence(int broker) {
        brokers.put(broker, brokers.get(broker).unfenced());
        updatePartitions(p -> PartitionLeadership.afterUnfence(p, broker));
    }

    private void updatePartitions(UnaryOperator<PartitionState> change) {
        for (Map.Entry<String, TopicImage> e : topics.entrySet()) {
            TopicImage topic = e.getValue();
            for (int i = 0; i < topic.partitions().size(); i++) {
                topic = topic.withPartition(i, change.apply(topic.partition(i)));
            }
            e.setValue(topic);
        }
    }

    /**
     * Checks a replica list a request names for one partition: distinct, registered brokers, {@code expectedSize} of
     * them (any size when negative), at least one unfenced so that it can lead.
     *
     * @param where the partition, for the message ("partition 2 of topic orders")
     */
    void checkReplicas(String where, List<Integer> replicas, int expectedSize) {
        if (replicas == null || replicas.isEmpty() || new HashSet<>(replicas).size() != replicas.size()) {
            throw new MetadataRequestException(
                    Errors.INVALID_REPLICA_ASSIGNMENT,
                    where + " has replicas " + replicas + "; they must be distinct and at least one");
        }
        if (expectedSize >= 0 && replicas.size() != expectedSize) {
            throw new MetadataRequestException(
                    Errors.INVALID_REPLICA_ASSIGNMENT,
                    where + " has " + replicas.size() + " replicas " + replicas + " where the topic has "
                            + expectedSize);
        }
        for (int broker : replicas) {
            if (!brokers.containsKey(broker)) {
                throw new MetadataRequestException(
                        Errors.INVALID_REPLICA_ASSIGNMENT,
                        where + " names broker " + broker + ", which is not registered");
            }
        }
        if (replicas.stream().noneMatch(this::isUnfenced)) {
            throw new MetadataRequestException(
                    Errors.INVALID_REPLICA_ASSIGNMENT,
                    "every replica " + replicas + " of " + where + " is fenced, so none could lead");
        }
    }
}
