package io.isthmus.client.group;

import io.isthmus.client.cluster.BrokerConnections;
import io.isthmus.client.cluster.ClusterMetadata;
import io.isthmus.client.cluster.CoordinatorClient;
import io.isthmus.client.cluster.TopicMetadata;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.UnstableOffsetCommitException;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * A group's committed offsets, read (OffsetFetch) and written (OffsetCommit) through its coordinator. Topics are named
 * by name and by id in every request, since the version negotiated may use either (ids from version 10 on): ids the
 * caller knows are used as they are, others are looked up with a metadata request, so offsets of partitions the
 * caller is not assigned (a stream engine commits its checkpoint, an admin reads any group) work too.
 */
public final class GroupOffsets {
    private final CoordinatorClient coordinator;
    private final BrokerConnections metadataConnections;

    public GroupOffsets(final CoordinatorClient coordinator, final BrokerConnections metadataConnections) {
        this.coordinator = coordinator;
        this.metadataConnections = metadataConnections;
    }

    /**
     * Commits {@code offsets} (the next offset to read, per partition) as a member of {@code generation} with {@code
     * memberId}, or outside the group's membership with -1 and "".
     *
     * @throws org.apache.kafka.common.KafkaException of the first partition's error, naming group, topic and partition
     */
    public void commit(
            final Map<TopicPartition, Long> offsets,
            final Map<String, Uuid> knownTopicIds,
            final int generation,
            final String memberId) {
        if (offsets.isEmpty()) {
            return;
        }
        final Map<String, Uuid> topicIds = withTopicIds(offsets.keySet(), knownTopicIds);
        final Map<String, OffsetCommitRequestData.OffsetCommitRequestTopic> byTopic = new HashMap<>();
        for (final Map.Entry<TopicPartition, Long> e : offsets.entrySet()) {
            final String topic = e.getKey().topic();
            byTopic.computeIfAbsent(topic, t -> new OffsetCommitRequestData.OffsetCommitRequestTopic()
                            .setName(t)
                            .setTopicId(topicIds.getOrDefault(t, Uuid.ZERO_UUID)))
                    .partitions()
                    .add(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                            .setPartitionIndex(e.getKey().partition())
                            .setCommittedOffset(e.getValue())
                            .setCommittedLeaderEpoch(-1)
                            .setCommittedMetadata(""));
        }
        final OffsetCommitResponseData response = (OffsetCommitResponseData) coordinator.request(
                ApiKeys.OFFSET_COMMIT,
                new OffsetCommitRequestData()
                        .setGroupId(coordinator.key())
                        .setGenerationIdOrMemberEpoch(generation)
                        .setMemberId(memberId)
                        .setTopics(new ArrayList<>(byTopic.values())));
        for (final OffsetCommitResponseData.OffsetCommitResponseTopic topic : response.topics()) {
            for (final OffsetCommitResponseData.OffsetCommitResponsePartition p : topic.partitions()) {
                final Errors error = Errors.forCode(p.errorCode());
                if (error != Errors.NONE) {
                    throw error.exception("OffsetCommit failed: group=" + coordinator.key() + ", topic=" + topic.name()
                            + ", partition=" + p.partitionIndex() + ", error=" + error);
                }
            }
        }
    }

    /**
     * Committed offsets of these partitions; partitions without one are absent.
     *
     * @param requireStable whether offsets a transaction has written but not finished count as unknown rather than as
     *     the offset committed before (Kafka's {@code require_stable}, on for consumers: a consumer that read the older
     *     offset would process the transaction's input again)
     * @throws UnstableOffsetCommitException with {@code requireStable}, if an open transaction has offsets for any of
     *     the partitions: ask again once it ended (retriable)
     */
    public Map<TopicPartition, Long> fetch(
            final Collection<TopicPartition> partitions,
            final Map<String, Uuid> knownTopicIds,
            final boolean requireStable) {
        final Map<String, Uuid> topicIds = withTopicIds(partitions, knownTopicIds);
        final Map<String, OffsetFetchRequestData.OffsetFetchRequestTopics> byTopic = new HashMap<>();
        for (final TopicPartition tp : partitions) {
            byTopic.computeIfAbsent(tp.topic(), t -> new OffsetFetchRequestData.OffsetFetchRequestTopics()
                            .setName(t)
                            .setTopicId(topicIds.getOrDefault(t, Uuid.ZERO_UUID)))
                    .partitionIndexes()
                    .add(tp.partition());
        }
        final OffsetFetchResponseData response = (OffsetFetchResponseData) coordinator.request(
                ApiKeys.OFFSET_FETCH,
                new OffsetFetchRequestData()
                        .setRequireStable(requireStable)
                        .setGroups(List.of(new OffsetFetchRequestData.OffsetFetchRequestGroup()
                                .setGroupId(coordinator.key())
                                .setMemberId(null)
                                .setMemberEpoch(-1)
                                .setTopics(new ArrayList<>(byTopic.values())))));
        final Map<Uuid, String> names = new HashMap<>();
        topicIds.forEach((name, id) -> names.put(id, name));
        final Map<TopicPartition, Long> result = new HashMap<>();
        List<TopicPartition> unstable = null;
        for (final OffsetFetchResponseData.OffsetFetchResponseGroup g : response.groups()) {
            final Errors groupError = Errors.forCode(g.errorCode());
            if (groupError != Errors.NONE) {
                throw groupError.exception("OffsetFetch failed: group=" + coordinator.key() + ", error=" + groupError);
            }
            for (final OffsetFetchResponseData.OffsetFetchResponseTopics t : g.topics()) {
                final String name = t.name() != null && !t.name().isEmpty() ? t.name() : names.get(t.topicId());
                for (final OffsetFetchResponseData.OffsetFetchResponsePartitions p : t.partitions()) {
                    if (p.errorCode() == Errors.NONE.code() && p.committedOffset() >= 0) {
                        result.put(new TopicPartition(name, p.partitionIndex()), p.committedOffset());
                    } else if (p.errorCode() == Errors.UNSTABLE_OFFSET_COMMIT.code()) {
                        if (unstable == null) {
                            unstable = new ArrayList<>();
                        }
                        unstable.add(new TopicPartition(name, p.partitionIndex()));
                    }
                }
            }
        }
        if (unstable != null) {
            throw new UnstableOffsetCommitException("offsets of an open transaction are pending: group="
                    + coordinator.key() + ", partitions=" + unstable);
        }
        return result;
    }

    /** The ids of the topics of {@code partitions}: those known, and the others from a metadata request. */
    private Map<String, Uuid> withTopicIds(final Collection<TopicPartition> partitions, final Map<String, Uuid> known) {
        Set<String> missing = null;
        for (final TopicPartition partition : partitions) {
            if (!known.containsKey(partition.topic())) {
                if (missing == null) {
                    missing = new HashSet<>();
                }
                missing.add(partition.topic());
            }
        }
        if (missing == null) {
            return known;
        }
        final Map<String, Uuid> ids = new HashMap<>(known);
        final ClusterMetadata metadata;
        synchronized (metadataConnections) {
            metadata = metadataConnections.refresh(missing);
        }
        for (final String topic : missing) {
            final TopicMetadata topicMetadata = metadata.topic(topic);
            if (topicMetadata == null || topicMetadata.error() != Errors.NONE) {
                final Errors error = topicMetadata == null ? Errors.UNKNOWN_TOPIC_OR_PARTITION : topicMetadata.error();
                throw error.exception("offsets of an unknown topic: group=" + coordinator.key() + ", topic=" + topic
                        + ", error=" + error);
            }
            ids.put(topic, topicMetadata.topicId());
        }
        return ids;
    }
}
