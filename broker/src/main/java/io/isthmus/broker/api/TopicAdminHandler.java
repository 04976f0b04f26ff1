package io.isthmus.broker.api;

import io.isthmus.broker.group.OffsetStore;
import io.isthmus.broker.network.RequestContext;
import io.isthmus.broker.network.Response;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.topic.TopicRegistry.TopicInfo;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.CreatePartitionsRequest;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.DeleteTopicsRequest;
import org.apache.kafka.common.resource.ResourceType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CreateTopics, CreatePartitions and DeleteTopics. A single broker holds one replica of everything: a replication
 * factor other than 1 (or -1, the broker's default), or an assignment to another broker, is refused, and so are
 * per-topic configs, which the log does not keep per topic yet.
 *
 * <p>One request may create at most {@link #MAX_PARTITIONS_PER_REQUEST} partitions in all, Kafka's controller limit:
 * a larger one is refused whole, every topic in it answered POLICY_VIOLATION, before anything is created. The broker's
 * own bound, {@code max.broker.partitions}, is the {@link PartitionManager}'s.
 */
public final class TopicAdminHandler implements ApiHandler {
    private static final Logger LOG = LoggerFactory.getLogger(TopicAdminHandler.class);
    /** Kafka's controller refuses a CreateTopics or CreatePartitions that would add more partitions than this. */
    public static final int MAX_PARTITIONS_PER_REQUEST = 10_000;

    private final PartitionManager partitions;
    private final OffsetStore offsets;
    private final int defaultPartitions;
    private final int nodeId;
    private final AccessControl access;

    public TopicAdminHandler(
            final PartitionManager partitions,
            final OffsetStore offsets,
            final int defaultPartitions,
            final int nodeId,
            final AccessControl access) {
        this.partitions = partitions;
        this.offsets = offsets;
        this.defaultPartitions = defaultPartitions;
        this.nodeId = nodeId;
        this.access = access;
    }

    @Override
    public Set<ApiKeys> apiKeys() {
        return Set.of(ApiKeys.CREATE_TOPICS, ApiKeys.CREATE_PARTITIONS, ApiKeys.DELETE_TOPICS);
    }

    @Override
    public CompletableFuture<Response> handle(final RequestContext context, final AbstractRequest request) {
        return CompletableFuture.completedFuture(Response.of(
                switch (request) {
                    case CreateTopicsRequest create -> create(context, create.data());
                    case CreatePartitionsRequest grow -> createPartitions(context, grow.data());
                    case DeleteTopicsRequest delete -> delete(context, delete.data());
                    default -> throw new IllegalArgumentException("not a topic request: " + request.apiKey());
                }));
    }

    private int partitionCount(final CreateTopicsRequestData.CreatableTopic requested) {
        return !requested.assignments().isEmpty()
                ? requested.assignments().size()
                : requested.numPartitions() == -1 ? defaultPartitions : requested.numPartitions();
    }

    private CreateTopicsResponseData create(final RequestContext context, final CreateTopicsRequestData data) {
        final CreateTopicsResponseData response = new CreateTopicsResponseData();
        final boolean mayCreateAny = access.allowsOnCluster(context, AclOperation.CREATE);
        long requestedPartitions = 0;
        for (final CreateTopicsRequestData.CreatableTopic requested : data.topics()) {
            requestedPartitions += Math.max(0, partitionCount(requested));
        }
        final ApiError tooLarge = requestedPartitions > MAX_PARTITIONS_PER_REQUEST
                ? new ApiError(
                        Errors.POLICY_VIOLATION,
                        "excessively large number of partitions per request: " + requestedPartitions
                                + " in all, at most " + MAX_PARTITIONS_PER_REQUEST)
                : null;
        for (final CreateTopicsRequestData.CreatableTopic requested : data.topics()) {
            final CreateTopicsResponseData.CreatableTopicResult result =
                    new CreateTopicsResponseData.CreatableTopicResult().setName(requested.name());
            response.topics().add(result);
            final int partitionCount = partitionCount(requested);
            if (!mayCreateAny && !access.allows(context, AclOperation.CREATE, ResourceType.TOPIC, requested.name())) {
                result.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                        .setErrorMessage("not authorized to create topic '" + requested.name() + "'");
                continue;
            }
            final ApiError refusal = tooLarge != null ? tooLarge : refusal(requested, partitionCount);
            if (refusal != null) {
                result.setErrorCode(refusal.error().code()).setErrorMessage(refusal.message());
                continue;
            }
            try {
                if (data.validateOnly()) {
                    partitions.checkCreateTopic(requested.name(), partitionCount);
                    result.setNumPartitions(partitionCount).setReplicationFactor((short) 1);
                } else {
                    final TopicInfo created = partitions.createTopic(requested.name(), partitionCount);
                    result.setTopicId(created.id())
                            .setNumPartitions(partitionCount)
                            .setReplicationFactor((short) 1);
                }
            } catch (final ApiException e) {
                result.setErrorCode(Errors.forException(e).code()).setErrorMessage(e.getMessage());
            } catch (final RuntimeException e) {
                LOG.error("CreateTopics failed: topic={}, partitions={}", requested.name(), partitionCount, e);
                result.setErrorCode(Errors.UNKNOWN_SERVER_ERROR.code()).setErrorMessage(e.getMessage());
            }
        }
        return response;
    }

    /** Why this broker cannot create the topic as asked, or null if it can. */
    private static ApiError refusal(final CreateTopicsRequestData.CreatableTopic requested, final int partitionCount) {
        if (requested.replicationFactor() != -1 && requested.replicationFactor() != 1) {
            return new ApiError(
                    Errors.INVALID_REPLICATION_FACTOR,
                    "replication factor " + requested.replicationFactor() + " is larger than the 1 broker available");
        }
        if (partitionCount < 1) {
            return new ApiError(
                    Errors.INVALID_PARTITIONS, "number of partitions must be at least 1, got " + partitionCount);
        }
        if (!requested.configs().isEmpty()) {
            return new ApiError(
                    Errors.INVALID_CONFIG,
                    "per-topic configs are not supported (got "
                            + requested.configs().size() + "); the broker's log.* settings apply to every topic");
        }
        return null;
    }

    /**
     * One result per topic named in the request. A topic named more than once gets INVALID_REQUEST, once, and is left
     * alone, as Kafka's controller does; every other topic is grown (or only checked, with {@code validate_only}) on
     * its own, so one topic's refusal or failure does not undo or hide another's growth.
     */
    private CreatePartitionsResponseData createPartitions(
            final RequestContext context, final CreatePartitionsRequestData data) {
        final Map<String, Integer> occurrences = new LinkedHashMap<>();
        for (final CreatePartitionsRequestData.CreatePartitionsTopic topic : data.topics()) {
            occurrences.merge(topic.name(), 1, Integer::sum);
        }
        long adding = 0;
        for (final CreatePartitionsRequestData.CreatePartitionsTopic topic : data.topics()) {
            final int current = partitions
                    .topics()
                    .byName(topic.name())
                    .map(TopicInfo::partitions)
                    .orElse(0);
            adding += Math.max(0, topic.count() - current);
        }
        final CreatePartitionsResponseData response = new CreatePartitionsResponseData();
        for (final CreatePartitionsRequestData.CreatePartitionsTopic topic : data.topics()) {
            final Integer times = occurrences.remove(topic.name());
            if (times == null) {
                continue; // a duplicate, answered at its first occurrence
            }
            final CreatePartitionsResponseData.CreatePartitionsTopicResult result =
                    new CreatePartitionsResponseData.CreatePartitionsTopicResult().setName(topic.name());
            response.results().add(result);
            if (times > 1) {
                result.setErrorCode(Errors.INVALID_REQUEST.code())
                        .setErrorMessage("duplicate topic name: topic '" + topic.name() + "' appears " + times
                                + " times in the request");
                continue;
            }
            if (!access.allows(context, AclOperation.ALTER, ResourceType.TOPIC, topic.name())) {
                result.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                        .setErrorMessage("not authorized to alter topic '" + topic.name() + "'");
                continue;
            }
            if (adding > MAX_PARTITIONS_PER_REQUEST) {
                result.setErrorCode(Errors.POLICY_VIOLATION.code())
                        .setErrorMessage("excessively large number of partitions per request: " + adding
                                + " new ones in all, at most " + MAX_PARTITIONS_PER_REQUEST);
                continue;
            }
            try {
                if (data.validateOnly()) {
                    partitions.checkCreatePartitions(
                            topic.name(), topic.count(), current -> checkAssignments(topic, current));
                } else {
                    partitions.createPartitions(
                            topic.name(), topic.count(), current -> checkAssignments(topic, current));
                }
            } catch (final ApiException e) {
                result.setErrorCode(Errors.forException(e).code()).setErrorMessage(e.getMessage());
            } catch (final RuntimeException e) {
                LOG.error("CreatePartitions failed: topic={}, count={}", topic.name(), topic.count(), e);
                result.setErrorCode(Errors.UNKNOWN_SERVER_ERROR.code()).setErrorMessage(e.getMessage());
            }
        }
        return response;
    }

    /**
     * Explicit assignments (null: the broker places the partitions) must give each new partition exactly one replica,
     * on this broker, since it is the only one; Kafka answers INVALID_REPLICA_ASSIGNMENT for a count of assignments
     * other than the number of partitions added, an unknown broker, or a replica count unlike the topic's.
     */
    private void checkAssignments(
            final CreatePartitionsRequestData.CreatePartitionsTopic topic, final TopicInfo current) {
        if (topic.assignments() == null) {
            return;
        }
        final int adding = topic.count() - current.partitions();
        if (topic.assignments().size() != adding) {
            throw new InvalidReplicaAssignmentException("topic '" + topic.name() + "' goes from " + current.partitions()
                    + " to " + topic.count() + " partitions, adding " + adding + ", but "
                    + topic.assignments().size() + " assignments were given");
        }
        for (int i = 0; i < adding; i++) {
            final List<Integer> replicas = topic.assignments().get(i).brokerIds();
            if (!replicas.equals(List.of(nodeId))) {
                throw new InvalidReplicaAssignmentException("partition " + (current.partitions() + i) + " of topic '"
                        + topic.name() + "' is assigned to brokers " + replicas + ", but broker " + nodeId
                        + " is the only one and each partition has one replica");
            }
        }
    }

    private DeleteTopicsResponseData delete(final RequestContext context, final DeleteTopicsRequestData data) {
        final DeleteTopicsResponseData response = new DeleteTopicsResponseData();
        if (context.apiVersion() < 6) {
            for (final String name : data.topicNames()) {
                response.responses().add(deleteOne(context, name, Uuid.ZERO_UUID));
            }
        } else {
            for (final DeleteTopicsRequestData.DeleteTopicState state : data.topics()) {
                response.responses().add(deleteOne(context, state.name(), state.topicId()));
            }
        }
        return response;
    }

    private DeleteTopicsResponseData.DeletableTopicResult deleteOne(
            final RequestContext context, final String name, final Uuid id) {
        final DeleteTopicsResponseData.DeletableTopicResult result = new DeleteTopicsResponseData.DeletableTopicResult()
                .setName(name)
                .setTopicId(id);
        final Optional<TopicInfo> topic = new TopicResolver(partitions.topics()).resolve(name, id);
        if (topic.isEmpty()) {
            return result.setErrorCode(TopicResolver.unknownTopicError(id).code());
        }
        if (!access.allows(
                context, AclOperation.DELETE, ResourceType.TOPIC, topic.get().name())) {
            // Named by id, the topic's name is not given away.
            return result.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                    .setErrorMessage("not authorized to delete the topic");
        }
        try {
            partitions.deleteTopic(topic.get().name());
            offsets.deleteTopic(topic.get().name());
            return result.setName(topic.get().name()).setTopicId(topic.get().id());
        } catch (final ApiException e) {
            return result.setErrorCode(Errors.forException(e).code()).setErrorMessage(e.getMessage());
        }
    }
}
