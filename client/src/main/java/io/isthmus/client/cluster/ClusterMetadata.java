package io.isthmus.client.cluster;

import io.isthmus.client.network.KafkaConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/** An immutable snapshot of one Metadata response: brokers, controller and the topics asked for. */
public final class ClusterMetadata {
    private final String clusterId;
    private final int controllerId;
    private final Map<Integer, BrokerNode> nodes;
    private final Map<String, TopicMetadata> topics;
    private final Map<Uuid, String> topicNames;

    public ClusterMetadata(
            final String clusterId,
            final int controllerId,
            final Map<Integer, BrokerNode> nodes,
            final Map<String, TopicMetadata> topics) {
        this.clusterId = clusterId;
        this.controllerId = controllerId;
        this.nodes = Map.copyOf(nodes);
        this.topics = Map.copyOf(topics);
        final Map<Uuid, String> names = new HashMap<>();
        for (final TopicMetadata topic : topics.values()) {
            if (topic.topicId() != null && !Uuid.ZERO_UUID.equals(topic.topicId())) {
                names.put(topic.topicId(), topic.name());
            }
        }
        this.topicNames = Map.copyOf(names);
    }

    /**
     * Sends a Metadata request on {@code connection} and waits for the answer.
     *
     * @param topics the topics to describe, or null for all topics
     */
    public static ClusterMetadata fetch(
            final KafkaConnection connection, final Collection<String> topics, final Duration timeout) {
        final MetadataRequestData request = new MetadataRequestData().setAllowAutoTopicCreation(false);
        if (topics == null) {
            request.setTopics(null);
        } else {
            final List<MetadataRequestData.MetadataRequestTopic> list = new ArrayList<>();
            for (final String topic : topics) {
                list.add(new MetadataRequestData.MetadataRequestTopic().setName(topic));
            }
            request.setTopics(list);
        }
        final MetadataResponseData response =
                (MetadataResponseData) connection.request(ApiKeys.METADATA, request, timeout);
        return from(response);
    }

    static ClusterMetadata from(final MetadataResponseData response) {
        final Map<Integer, BrokerNode> nodes = new HashMap<>();
        for (final MetadataResponseData.MetadataResponseBroker broker : response.brokers()) {
            nodes.put(broker.nodeId(), new BrokerNode(broker.nodeId(), broker.host(), broker.port(), broker.rack()));
        }
        final Map<String, TopicMetadata> topics = new HashMap<>();
        for (final MetadataResponseData.MetadataResponseTopic topic : response.topics()) {
            final List<PartitionMetadata> partitions = new ArrayList<>();
            for (final MetadataResponseData.MetadataResponsePartition p : topic.partitions()) {
                partitions.add(new PartitionMetadata(
                        topic.name(),
                        p.partitionIndex(),
                        p.leaderId(),
                        p.leaderEpoch(),
                        List.copyOf(p.replicaNodes()),
                        List.copyOf(p.isrNodes())));
            }
            partitions.sort(Comparator.comparingInt(PartitionMetadata::partition));
            if (topic.name() != null) {
                topics.put(
                        topic.name(),
                        new TopicMetadata(
                                topic.name(),
                                topic.topicId(),
                                Errors.forCode(topic.errorCode()),
                                topic.isInternal(),
                                List.copyOf(partitions)));
            }
        }
        return new ClusterMetadata(response.clusterId(), response.controllerId(), nodes, topics);
    }

    /**
     * This metadata, except for partitions it names with an older leader epoch than {@code previous} did: those keep
     * what {@code previous} said, their leader's node included (Kafka's rule since KIP-320). A broker whose image lags
     * the quorum's (one just resumed, or slow to apply) answers with leaders that were replaced since, and following
     * it would send the client back to a broker it already saw lose the partition. A topic recreated under a new id
     * starts its epochs again, and is taken as it comes.
     */
    public ClusterMetadata keepingNewerLeadersOf(final ClusterMetadata previous) {
        if (previous == null) {
            return this;
        }
        Map<String, TopicMetadata> mergedTopics = null;
        Map<Integer, BrokerNode> mergedNodes = null;
        for (final TopicMetadata topic : topics.values()) {
            final TopicMetadata known = previous.topic(topic.name());
            if (known == null
                    || topic.error() != Errors.NONE
                    || known.error() != Errors.NONE
                    || !sameTopic(topic.topicId(), known.topicId())) {
                continue;
            }
            List<PartitionMetadata> partitions = null;
            for (final PartitionMetadata p : topic.partitions()) {
                if (p.partition() >= known.partitionCount()) {
                    continue;
                }
                final PartitionMetadata before = known.partitions().get(p.partition());
                if (p.leaderEpoch() < 0 || before.leaderEpoch() <= p.leaderEpoch()) {
                    continue;
                }
                if (partitions == null) {
                    partitions = new ArrayList<>(topic.partitions());
                }
                partitions.set(p.partition(), before);
                final BrokerNode leader = previous.node(before.leader());
                if (leader != null && !nodes.containsKey(leader.id())) {
                    if (mergedNodes == null) {
                        mergedNodes = new HashMap<>(nodes);
                    }
                    mergedNodes.put(leader.id(), leader);
                }
            }
            if (partitions != null) {
                if (mergedTopics == null) {
                    mergedTopics = new HashMap<>(topics);
                }
                mergedTopics.put(
                        topic.name(),
                        new TopicMetadata(
                                topic.name(),
                                topic.topicId(),
                                topic.error(),
                                topic.internal(),
                                List.copyOf(partitions)));
            }
        }
        if (mergedTopics == null) {
            return this;
        }
        return new ClusterMetadata(clusterId, controllerId, mergedNodes == null ? nodes : mergedNodes, mergedTopics);
    }

    /**
     * What the client has seen so far: this metadata's topics and brokers, each replaced by {@code newer}'s where it
     * names them too. A refresh of some topics only (a producer asks for the topics it found stale) leaves the others
     * as last seen, so a later answer about them is still checked against their newest leader epoch.
     */
    public ClusterMetadata updatedWith(final ClusterMetadata newer) {
        final Map<String, TopicMetadata> allTopics = new HashMap<>(topics);
        allTopics.putAll(newer.topics);
        final Map<Integer, BrokerNode> allNodes = new HashMap<>(nodes);
        allNodes.putAll(newer.nodes);
        return new ClusterMetadata(newer.clusterId, newer.controllerId, allNodes, allTopics);
    }

    /** Whether two topic ids name the same topic: equal, or either unknown (an old broker, or a v0 answer). */
    private static boolean sameTopic(final Uuid a, final Uuid b) {
        return a == null || b == null || Uuid.ZERO_UUID.equals(a) || Uuid.ZERO_UUID.equals(b) || a.equals(b);
    }

    public String clusterId() {
        return clusterId;
    }

    public int controllerId() {
        return controllerId;
    }

    public Map<Integer, BrokerNode> nodes() {
        return nodes;
    }

    public BrokerNode node(final int id) {
        return nodes.get(id);
    }

    public Map<String, TopicMetadata> topics() {
        return topics;
    }

    /** The topic, or null if the response did not describe it. */
    public TopicMetadata topic(final String name) {
        return topics.get(name);
    }

    /** The name of the topic with this id, or null. */
    public String topicName(final Uuid topicId) {
        return topicNames.get(topicId);
    }

    @Override
    public String toString() {
        return "ClusterMetadata{clusterId=" + clusterId + ", controllerId=" + controllerId + ", nodes=" + nodes.keySet()
                + ", topics=" + topics.keySet() + '}';
    }
}
