package io.isthmus.client.admin;

import io.isthmus.client.cluster.BrokerConnections;
import io.isthmus.client.cluster.ClusterMetadata;
import io.isthmus.client.cluster.CoordinatorClient;
import io.isthmus.client.cluster.OffsetAndTime;
import io.isthmus.client.cluster.OffsetLookup;
import io.isthmus.client.cluster.TopicMetadata;
import io.isthmus.client.group.GroupOffsets;
import io.isthmus.client.network.KafkaConnection;
import io.isthmus.client.network.ReceiveBufferPool;
import io.isthmus.client.security.SecuritySettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * Topic administration: create, delete, list, describe, offsets by time or end, and groups' committed offsets.
 * Every call waits for the answer; errors come back as Kafka's exception types ({@code TopicExistsException}, {@code
 * UnknownTopicOrPartitionException} ...) with the topic named. Thread-safe (calls are serialised).
 */
public final class IsthmusAdmin implements AutoCloseable {
    private final ReceiveBufferPool pool = new ReceiveBufferPool(64 * 1024);
    private final BrokerConnections connections;
    private final Duration timeout;

    public IsthmusAdmin(final String bootstrapServers) {
        this(bootstrapServers, Duration.ofSeconds(30));
    }

    public IsthmusAdmin(final String bootstrapServers, final Duration timeout) {
        this(bootstrapServers, timeout, SecuritySettings.PLAINTEXT);
    }

    /** @param security how to authenticate, as the producers and consumers of the same application do */
    public IsthmusAdmin(final String bootstrapServers, final Duration timeout, final SecuritySettings security) {
        this.timeout = timeout;
        this.connections = new BrokerConnections(
                BrokerConnections.parseBootstrap(bootstrapServers), "isthmus-admin", pool, timeout, security);
    }

    private KafkaConnection controller() {
        final ClusterMetadata metadata =
                connections.metadata() != null ? connections.metadata() : connections.refresh(List.of());
        final int controller = metadata.controllerId();
        return controller >= 0 && metadata.node(controller) != null ? connections.node(controller) : connections.any();
    }

    /** Creates a topic and waits until its partitions have leaders. */
    public synchronized void createTopic(final String name, final int partitions, final short replicationFactor) {
        createTopic(name, partitions, replicationFactor, Map.of());
    }

    public synchronized void createTopic(
            final String name, final int partitions, final short replicationFactor, final Map<String, String> configs) {
        final CreateTopicsRequestData.CreatableTopic topic = new CreateTopicsRequestData.CreatableTopic()
                .setName(name)
                .setNumPartitions(partitions)
                .setReplicationFactor(replicationFactor);
        configs.forEach((k, v) -> topic.configs()
                .add(new CreateTopicsRequestData.CreatableTopicConfig()
                        .setName(k)
                        .setValue(v)));
        final CreateTopicsRequestData request = new CreateTopicsRequestData()
                .setTimeoutMs((int) timeout.toMillis())
                .setValidateOnly(false);
        request.topics().add(topic);
        final CreateTopicsResponseData response =
                (CreateTopicsResponseData) controller().request(ApiKeys.CREATE_TOPICS, request, timeout);
        for (final CreateTopicsResponseData.CreatableTopicResult result : response.topics()) {
            final Errors error = Errors.forCode(result.errorCode());
            if (error != Errors.NONE) {
                throw error.exception(
                        "create topic failed: topic=" + result.name() + ", partitions=" + partitions + ", error="
                                + error + (result.errorMessage() == null ? "" : ", message=" + result.errorMessage()));
            }
        }
        connections.awaitTopics(List.of(name), timeout);
    }

    /**
     * Raises {@code topic}'s partition count to {@code totalCount} (CreatePartitions, the broker placing the new
     * partitions) and waits until the new partitions have leaders. Producers and group consumers reach the new
     * partitions after their next metadata refresh ({@code metadata.max.age.ms}).
     *
     * @throws org.apache.kafka.common.errors.ApiException Kafka's exception of the broker's error, naming topic, count
     *     and the broker's message: {@code InvalidPartitionsException} for a count not above the current one, {@code
     *     UnknownTopicOrPartitionException} for a missing topic
     */
    public synchronized void createPartitions(final String topic, final int totalCount) {
        final CreatePartitionsRequestData request = new CreatePartitionsRequestData()
                .setTimeoutMs((int) timeout.toMillis())
                .setValidateOnly(false);
        request.topics()
                .add(new CreatePartitionsRequestData.CreatePartitionsTopic()
                        .setName(topic)
                        .setCount(totalCount)
                        .setAssignments(null));
        final CreatePartitionsResponseData response =
                (CreatePartitionsResponseData) controller().request(ApiKeys.CREATE_PARTITIONS, request, timeout);
        for (final CreatePartitionsResponseData.CreatePartitionsTopicResult result : response.results()) {
            final Errors error = Errors.forCode(result.errorCode());
            if (error != Errors.NONE) {
                throw error.exception("create partitions failed: topic=" + result.name() + ", count=" + totalCount
                        + ", error=" + error
                        + (result.errorMessage() == null ? "" : ", message=" + result.errorMessage()));
            }
        }
        connections.awaitTopics(List.of(topic), timeout);
    }

    /** Deletes topics. */
    public synchronized void deleteTopics(final Collection<String> names) {
        final DeleteTopicsRequestData request = new DeleteTopicsRequestData().setTimeoutMs((int) timeout.toMillis());
        for (final String name : names) {
            request.topicNames().add(name);
            request.topics().add(new DeleteTopicsRequestData.DeleteTopicState().setName(name));
        }
        final DeleteTopicsResponseData response =
                (DeleteTopicsResponseData) controller().request(ApiKeys.DELETE_TOPICS, request, timeout);
        for (final DeleteTopicsResponseData.DeletableTopicResult result : response.responses()) {
            final Errors error = Errors.forCode(result.errorCode());
            if (error != Errors.NONE) {
                throw error.exception("delete topic failed: topic=" + result.name() + ", error=" + error
                        + (result.errorMessage() == null ? "" : ", message=" + result.errorMessage()));
            }
        }
    }

    /** Names of the topics that are not internal. */
    public synchronized Set<String> listTopics() {
        final ClusterMetadata metadata = connections.refresh(null);
        final Set<String> names = new TreeSet<>();
        for (final TopicMetadata topic : metadata.topics().values()) {
            if (!topic.internal()) {
                names.add(topic.name());
            }
        }
        return names;
    }

    /** Describes topics; an unknown one raises {@code UnknownTopicOrPartitionException}. */
    public synchronized Map<String, TopicDescription> describeTopics(final Collection<String> names) {
        final ClusterMetadata metadata = connections.refresh(names);
        final Map<String, TopicDescription> result = new HashMap<>();
        for (final String name : names) {
            final TopicMetadata topic = metadata.topic(name);
            if (topic == null || topic.error() != Errors.NONE) {
                final Errors error = topic == null ? Errors.UNKNOWN_TOPIC_OR_PARTITION : topic.error();
                throw error.exception("describe topic failed: topic=" + name + ", error=" + error);
            }
            result.put(name, new TopicDescription(name, topic.topicId(), topic.internal(), topic.partitions()));
        }
        return result;
    }

    /**
     * Offsets per partition for {@link OffsetLookup#EARLIEST}, {@link OffsetLookup#LATEST} or a timestamp (null: no
     * record at or after it).
     */
    public synchronized Map<TopicPartition, OffsetAndTime> listOffsets(final Map<TopicPartition, Long> query) {
        return listOffsets(query, false);
    }

    /**
     * As {@link #listOffsets(Map)}, at an isolation level: for {@code readCommitted} the latest offset is the last stable
     * offset (the end a {@code read_committed} consumer reads to), as Kafka's {@code ListOffsetsOptions(READ_COMMITTED)}.
     */
    public synchronized Map<TopicPartition, OffsetAndTime> listOffsets(
            final Map<TopicPartition, Long> query, final boolean readCommitted) {
        return OffsetLookup.lookup(connections, query, readCommitted ? (byte) 1 : (byte) 0);
    }

    /** The end offset (high watermark) of every partition of a topic. */
    public synchronized Map<TopicPartition, Long> endOffsets(final String topic) {
        final TopicDescription description = describeTopics(List.of(topic)).get(topic);
        final Map<TopicPartition, Long> query = new HashMap<>();
        for (int p = 0; p < description.partitionCount(); p++) {
            query.put(new TopicPartition(topic, p), OffsetLookup.LATEST);
        }
        final Map<TopicPartition, Long> result = new HashMap<>();
        OffsetLookup.lookup(connections, query, (byte) 0)
                .forEach((tp, o) -> result.put(tp, o == null ? -1 : o.offset()));
        return result;
    }

    /** The partitions of a topic. */
    public synchronized List<TopicPartition> partitionsOf(final String topic) {
        final TopicDescription description = describeTopics(List.of(topic)).get(topic);
        final List<TopicPartition> partitions = new ArrayList<>();
        for (int p = 0; p < description.partitionCount(); p++) {
            partitions.add(new TopicPartition(topic, p));
        }
        return partitions;
    }

    /**
     * The committed offsets of group {@code groupId} for these partitions (the next offset the group reads); partitions
     * without one are absent, and so are all of them for a group that never committed. Asks the group's coordinator,
     * found with FindCoordinator, with OffsetFetch, as Kafka's {@code Admin#listConsumerGroupOffsets} does.
     *
     * @throws org.apache.kafka.common.errors.UnknownTopicOrPartitionException for a topic the cluster does not have
     *     (OffsetFetch names topics by id from version 10 on, so each topic's id is looked up first)
     * @throws org.apache.kafka.common.errors.ApiException Kafka's exception of a group-level OffsetFetch error, naming
     *     the group
     */
    public synchronized Map<TopicPartition, Long> listConsumerGroupOffsets(
            final String groupId, final Collection<TopicPartition> partitions) {
        final CoordinatorClient coordinator = CoordinatorClient.forGroup(connections, groupId, timeout);
        try {
            // As Kafka's Admin by default: offsets of an open transaction do not count yet, the ones before them do.
            return new GroupOffsets(coordinator, connections).fetch(partitions, Map.of(), false);
        } finally {
            coordinator.reset();
        }
    }

    @Override
    public synchronized void close() {
        connections.close();
        pool.close();
    }
}
