package io.isthmus.broker.api;

import io.isthmus.broker.log.LeaderEpochCache.EpochEndOffset;
import io.isthmus.broker.network.RequestContext;
import io.isthmus.broker.network.Response;
import io.isthmus.broker.partition.Partition;
import io.isthmus.broker.partition.PartitionLeadership;
import io.isthmus.broker.partition.PartitionManager;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderPartition;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderTopic;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochRequest;
import org.apache.kafka.common.resource.ResourceType;

/**
 * OffsetForLeaderEpoch (KIP-101, KIP-320): where a leader epoch ends in the leader's log. A consumer asks after a
 * leader change, with the epoch of its position, and learns whether the log it was reading was truncated below that
 * position; a follower asks with the newest epoch in its own log and truncates to the answer.
 *
 * <p>Answered by the leader only, after the same epoch check as Fetch: a {@code currentLeaderEpoch} older than the
 * leader's is FENCED_LEADER_EPOCH, a newer one UNKNOWN_LEADER_EPOCH. An epoch this log does not know is answered with
 * Kafka's undefined epoch and offset (-1, -1). As in Kafka, CLUSTER_ACTION on the cluster (what a replica has) or
 * DESCRIBE on the topic allows the question, and TOPIC_AUTHORIZATION_FAILED answers it otherwise.
 */
public final class OffsetForLeaderEpochHandler implements ApiHandler {
    private final PartitionManager partitions;
    private final AccessControl access;
    private final PartitionLeadership leadership;

    public OffsetForLeaderEpochHandler(
            final PartitionManager partitions, final AccessControl access, final PartitionLeadership leadership) {
        this.partitions = partitions;
        this.access = access;
        this.leadership = leadership;
    }

    @Override
    public Set<ApiKeys> apiKeys() {
        return Set.of(ApiKeys.OFFSET_FOR_LEADER_EPOCH);
    }

    @Override
    public CompletableFuture<Response> handle(final RequestContext context, final AbstractRequest request) {
        final OffsetForLeaderEpochRequestData data = ((OffsetsForLeaderEpochRequest) request).data();
        final boolean clusterAction = access.allowsOnCluster(context, AclOperation.CLUSTER_ACTION);
        final OffsetForLeaderEpochResponseData response = new OffsetForLeaderEpochResponseData();
        for (final OffsetForLeaderTopic topic : data.topics()) {
            final OffsetForLeaderTopicResult topicResult = new OffsetForLeaderTopicResult().setTopic(topic.topic());
            response.topics().add(topicResult);
            final boolean allowed =
                    clusterAction || access.allows(context, AclOperation.DESCRIBE, ResourceType.TOPIC, topic.topic());
            for (final OffsetForLeaderPartition requested : topic.partitions()) {
                final TopicPartition topicPartition = new TopicPartition(topic.topic(), requested.partition());
                topicResult.partitions().add(answer(allowed, topicPartition, requested));
            }
        }
        return CompletableFuture.completedFuture(Response.of(response));
    }

    private OffsetForLeaderEpochResponseData.EpochEndOffset answer(
            final boolean allowed, final TopicPartition topicPartition, final OffsetForLeaderPartition requested) {
        if (!allowed) {
            return error(topicPartition, Errors.TOPIC_AUTHORIZATION_FAILED);
        }
        final Optional<Partition> partition = partitions.partition(topicPartition);
        if (partition.isEmpty()) {
            return error(
                    topicPartition,
                    leadership.heldElsewhere(topicPartition)
                            ? Errors.NOT_LEADER_OR_FOLLOWER
                            : Errors.UNKNOWN_TOPIC_OR_PARTITION);
        }
        final Errors notLeader = leadership.check(partition.get(), requested.currentLeaderEpoch());
        if (notLeader != Errors.NONE) {
            return error(topicPartition, notLeader);
        }
        final EpochEndOffset end = partition.get().endOffsetForEpoch(requested.leaderEpoch());
        return new OffsetForLeaderEpochResponseData.EpochEndOffset()
                .setPartition(topicPartition.partition())
                .setErrorCode(Errors.NONE.code())
                .setLeaderEpoch(end.epoch())
                .setEndOffset(end.endOffset());
    }

    private static OffsetForLeaderEpochResponseData.EpochEndOffset error(
            final TopicPartition topicPartition, final Errors error) {
        return new OffsetForLeaderEpochResponseData.EpochEndOffset()
                .setPartition(topicPartition.partition())
                .setErrorCode(error.code())
                .setLeaderEpoch(EpochEndOffset.UNDEFINED.epoch())
                .setEndOffset(EpochEndOffset.UNDEFINED.endOffset());
    }
}
