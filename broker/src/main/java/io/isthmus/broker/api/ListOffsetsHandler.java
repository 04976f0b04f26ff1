package io.isthmus.broker.api;

import io.isthmus.broker.log.LogReadResult;
import io.isthmus.broker.network.RequestContext;
import io.isthmus.broker.network.Response;
import io.isthmus.broker.partition.Partition;
import io.isthmus.broker.partition.PartitionLeadership;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.protocol.record.RecordBatch;
import io.isthmus.protocol.record.RecordCursor;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.resource.ResourceType;

/**
 * ListOffsets: the earliest and latest offsets, and the first offset whose record timestamp is at least a
 * given time (found through the time index, then exactly within the batch). With {@code isolation_level=1} the latest
 * offset is the last stable offset, as in Kafka. Each offset is answered with the leader epoch of the batch that holds it
 * (the current epoch for the latest offset), which a consumer keeps with its position and validates after a leader
 * change (KIP-320).
 */
public final class ListOffsetsHandler implements ApiHandler {
    private static final byte READ_COMMITTED = 1;
    /** The first ListOffsets version whose response carries a leader epoch. */
    private static final short FIRST_VERSION_WITH_LEADER_EPOCH = 4;
    /** Enough to hold the batch that holds the target record. */
    private static final int TIMESTAMP_LOOKUP_BYTES = 1;

    private final PartitionManager partitions;
    private final AccessControl access;
    private final PartitionLeadership leadership;

    /** A single broker's handler: it leads every partition it has. */
    public ListOffsetsHandler(final PartitionManager partitions, final AccessControl access) {
        this(partitions, access, PartitionLeadership.SOLE_BROKER);
    }

    public ListOffsetsHandler(
            final PartitionManager partitions, final AccessControl access, final PartitionLeadership leadership) {
        this.partitions = partitions;
        this.access = access;
        this.leadership = leadership;
    }

    @Override
    public Set<ApiKeys> apiKeys() {
        return Set.of(ApiKeys.LIST_OFFSETS);
    }

    @Override
    public CompletableFuture<Response> handle(final RequestContext context, final AbstractRequest request) {
        final ListOffsetsRequestData data = ((ListOffsetsRequest) request).data();
        final ListOffsetsResponseData response = new ListOffsetsResponseData();
        for (final ListOffsetsRequestData.ListOffsetsTopic topic : data.topics()) {
            final ListOffsetsResponseData.ListOffsetsTopicResponse topicResponse =
                    new ListOffsetsResponseData.ListOffsetsTopicResponse().setName(topic.name());
            response.topics().add(topicResponse);
            final boolean described = access.allows(context, AclOperation.DESCRIBE, ResourceType.TOPIC, topic.name());
            for (final ListOffsetsRequestData.ListOffsetsPartition requested : topic.partitions()) {
                final Optional<Partition> partition = described
                        ? partitions.partition(new TopicPartition(topic.name(), requested.partitionIndex()))
                        : Optional.empty();
                final Errors notLeader = partition.isPresent()
                        ? leadership.check(partition.get(), requested.currentLeaderEpoch())
                        : described
                                        && leadership.heldElsewhere(
                                                new TopicPartition(topic.name(), requested.partitionIndex()))
                                ? Errors.NOT_LEADER_OR_FOLLOWER
                                : Errors.NONE;
                final ListOffsetsResponseData.ListOffsetsPartitionResponse answer = partition
                        .filter(p -> notLeader == Errors.NONE)
                        .map(p ->
                                lookupUnlessDeleted(p, requested.timestamp(), data.isolationLevel() == READ_COMMITTED))
                        .orElseGet(() -> answer(
                                !described
                                        ? Errors.TOPIC_AUTHORIZATION_FAILED
                                        : notLeader != Errors.NONE ? notLeader : Errors.UNKNOWN_TOPIC_OR_PARTITION,
                                -1,
                                -1,
                                -1))
                        .setPartitionIndex(requested.partitionIndex());
                if (context.apiVersion() < FIRST_VERSION_WITH_LEADER_EPOCH) {
                    // Older versions have no such field, and the generated encoder refuses a non-default value.
                    answer.setLeaderEpoch(-1);
                }
                topicResponse.partitions().add(answer);
            }
        }
        return CompletableFuture.completedFuture(Response.of(response));
    }

    /**
     * {@link #lookup}, answered UNKNOWN_TOPIC_OR_PARTITION when the partition's topic was deleted after this request
     * found it (its log closed under the lookup), as if it had not been found; any other failure still fails.
     */
    private static ListOffsetsResponseData.ListOffsetsPartitionResponse lookupUnlessDeleted(
            final Partition partition, final long timestamp, final boolean committedOnly) {
        try {
            return lookup(partition, timestamp, committedOnly);
        } catch (final IllegalStateException e) {
            if (!partition.log().isClosed()) {
                throw e;
            }
            return answer(Errors.UNKNOWN_TOPIC_OR_PARTITION, -1, -1, -1);
        }
    }

    private static ListOffsetsResponseData.ListOffsetsPartitionResponse lookup(
            final Partition partition, final long timestamp, final boolean committedOnly) {
        if (timestamp == ListOffsetsRequest.LATEST_TIMESTAMP) {
            // read_committed: the end a read_committed consumer can reach.
            return answer(
                    Errors.NONE,
                    -1,
                    committedOnly ? partition.lastStableOffset() : partition.highWatermark(),
                    partition.leaderEpoch());
        }
        if (timestamp == ListOffsetsRequest.EARLIEST_TIMESTAMP
                || timestamp == ListOffsetsRequest.EARLIEST_LOCAL_TIMESTAMP) {
            final long start = partition.logStartOffset();
            return answer(Errors.NONE, -1, start, partition.log().epochAt(start));
        }
        if (timestamp < 0) {
            // MAX_TIMESTAMP and the tiered-storage specs need per-record bookkeeping this broker does not keep.
            return answer(Errors.UNSUPPORTED_VERSION, -1, -1, -1);
        }
        final OptionalLong batchOffset = partition.log().offsetForTimestamp(timestamp);
        // Only what a consumer may fetch: below the high watermark (the last stable offset for read_committed).
        final long fetchable = committedOnly ? partition.lastStableOffset() : partition.highWatermark();
        if (batchOffset.isEmpty() || batchOffset.getAsLong() >= fetchable) {
            return answer(Errors.NONE, -1, -1, -1);
        }
        try (LogReadResult result = partition.read(batchOffset.getAsLong(), TIMESTAMP_LOOKUP_BYTES)) {
            final RecordBatch batch = new RecordBatch().wrap(result.records(), 0);
            final RecordCursor cursor = batch.cursor();
            while (cursor.next()) {
                if (cursor.record().timestamp() >= timestamp && cursor.record().offset() < fetchable) {
                    return answer(
                            Errors.NONE,
                            cursor.record().timestamp(),
                            cursor.record().offset(),
                            batch.partitionLeaderEpoch());
                }
            }
        }
        // The batch's max timestamp qualified, so one of its records must; an empty answer is the safe one.
        return answer(Errors.NONE, -1, -1, -1);
    }

    private static ListOffsetsResponseData.ListOffsetsPartitionResponse answer(
            final Errors error, final long timestamp, final long offset, final int leaderEpoch) {
        return new ListOffsetsResponseData.ListOffsetsPartitionResponse()
                .setErrorCode(error.code())
                .setTimestamp(timestamp)
                .setOffset(offset)
                .setLeaderEpoch(offset >= 0 ? leaderEpoch : -1);
    }
}
