package io.isthmus.broker.cluster;

import static java.util.concurrent.TimeUnit.MILLISECONDS;

import io.isthmus.broker.api.AccessControl;
import io.isthmus.broker.api.ApiHandler;
import io.isthmus.broker.network.RequestContext;
import io.isthmus.broker.network.Response;
import io.isthmus.metadata.image.TopicImage;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.CreatePartitionsRequest;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.DeleteTopicsRequest;
import org.apache.kafka.common.resource.ResourceType;

/**
 * CreateTopics, CreatePartitions and DeleteTopics on a broker of a cluster: each topic the principal may change, with
 * the broker's defaults settled, is forwarded to the metadata quorum, which places, numbers and refuses as Kafka's
 * controller does; the rest are answered here. The answer keeps the request's order.
 *
 * <p>A topic created without a replication factor gets {@code default.replication.factor}; the quorum places the
 * replicas (and refuses a factor above the brokers it has). Per-topic configs are refused as on a single broker.
 */
final class ClusterTopicAdminHandler implements ApiHandler {
    /** Internal topics ({@code __transaction_state}) are created and kept by the brokers alone. */
    private static final String INTERNAL = "the brokers manage internal topic ";

    private final ClusterMembership membership;
    private final int defaultPartitions;
    private final AccessControl access;

    ClusterTopicAdminHandler(
            final ClusterMembership membership, final int defaultPartitions, final AccessControl access) {
        this.membership = membership;
        this.defaultPartitions = defaultPartitions;
        this.access = access;
    }

    @Override
    public Set<ApiKeys> apiKeys() {
        return Set.of(ApiKeys.CREATE_TOPICS, ApiKeys.CREATE_PARTITIONS, ApiKeys.DELETE_TOPICS);
    }

    @Override
    public CompletableFuture<Response> handle(final RequestContext context, final AbstractRequest request) {
        return switch (request) {
            case CreateTopicsRequest create -> create(context, create.data()).thenApply(Response::of);
            case CreatePartitionsRequest grow -> grow(context, grow.data()).thenApply(Response::of);
            case DeleteTopicsRequest delete ->
                delete(context, delete.data(), context.apiVersion()).thenApply(Response::of);
            default -> throw new IllegalArgumentException("not a topic request: " + request.apiKey());
        };
    }

    private CompletableFuture<CreateTopicsResponseData> create(
            final RequestContext context, final CreateTopicsRequestData data) {
        final boolean mayCreateAny = access.allowsOnCluster(context, AclOperation.CREATE);
        final Map<String, Integer> occurrences = new HashMap<>();
        for (final CreateTopicsRequestData.CreatableTopic topic : data.topics()) {
            occurrences.merge(topic.name(), 1, Integer::sum);
        }
        final Map<String, CreateTopicsResponseData.CreatableTopicResult> refused = new HashMap<>();
        final CreateTopicsRequestData forwarded =
                new CreateTopicsRequestData().setTimeoutMs(data.timeoutMs()).setValidateOnly(data.validateOnly());
        for (final CreateTopicsRequestData.CreatableTopic topic : data.topics()) {
            final String refusal;
            final Errors error;
            if (occurrences.get(topic.name()) > 1) {
                // As Kafka's controller: a name given more than once is refused, once.
                error = Errors.INVALID_REQUEST;
                refusal = "duplicate topic name: topic '" + topic.name() + "' appears " + occurrences.get(topic.name())
                        + " times in the request";
            } else if (!mayCreateAny
                    && !access.allows(context, AclOperation.CREATE, ResourceType.TOPIC, topic.name())) {
                error = Errors.TOPIC_AUTHORIZATION_FAILED;
                refusal = "not authorized to create topic '" + topic.name() + "'";
            } else if (Topic.isInternal(topic.name())) {
                error = Errors.INVALID_REQUEST;
                refusal = INTERNAL + topic.name();
            } else if (!topic.configs().isEmpty()) {
                error = Errors.INVALID_CONFIG;
                refusal = "per-topic configs are not supported (got "
                        + topic.configs().size() + "); the broker's log.* settings apply to every topic";
            } else {
                final CreateTopicsRequestData.CreatableTopic settled = topic.duplicate();
                if (settled.assignments().isEmpty()) {
                    // The broker's defaults are settled here: every voter must place the topic alike. Other values,
                    // 0 or negative ones included, go as given for the quorum to accept or refuse.
                    if (settled.numPartitions() == -1) {
                        settled.setNumPartitions(defaultPartitions);
                    }
                    if (settled.replicationFactor() == -1) {
                        settled.setReplicationFactor(membership.settings().defaultReplicationFactor());
                    }
                }
                forwarded.topics().add(settled);
                continue;
            }
            refused.put(
                    topic.name(),
                    new CreateTopicsResponseData.CreatableTopicResult()
                            .setName(topic.name())
                            .setErrorCode(error.code())
                            .setErrorMessage(refusal));
        }
        final CompletableFuture<CreateTopicsResponseData> answered =
                forwarded.topics().isEmpty()
                        ? CompletableFuture.completedFuture(new CreateTopicsResponseData())
                        : membership
                                .controller()
                                .createTopics(forwarded)
                                .orTimeout(QuorumForwarding.timeoutOf(data.timeoutMs()), MILLISECONDS);
        return answered.handle((answer, failure) -> {
            final CreateTopicsResponseData response = new CreateTopicsResponseData();
            for (final CreateTopicsRequestData.CreatableTopic topic : data.topics()) {
                CreateTopicsResponseData.CreatableTopicResult result = refused.get(topic.name());
                if (result == null) {
                    final CreateTopicsResponseData.CreatableTopicResult decided =
                            answer == null ? null : answer.topics().find(topic.name());
                    result = decided != null
                            ? decided.duplicate()
                            : new CreateTopicsResponseData.CreatableTopicResult()
                                    .setName(topic.name())
                                    .setErrorCode(
                                            QuorumForwarding.errorOf(failure).code())
                                    .setErrorMessage(QuorumForwarding.reason(failure));
                }
                // A name given twice is answered once, as Kafka does.
                if (response.topics().find(topic.name()) == null) {
                    response.topics().add(result);
                }
            }
            return response;
        });
    }

    private CompletableFuture<CreatePartitionsResponseData> grow(
            final RequestContext context, final CreatePartitionsRequestData data) {
        final Map<String, CreatePartitionsResponseData.CreatePartitionsTopicResult> refused = new HashMap<>();
        final CreatePartitionsRequestData forwarded =
                new CreatePartitionsRequestData().setTimeoutMs(data.timeoutMs()).setValidateOnly(data.validateOnly());
        for (final CreatePartitionsRequestData.CreatePartitionsTopic topic : data.topics()) {
            if (!access.allows(context, AclOperation.ALTER, ResourceType.TOPIC, topic.name())) {
                refused.put(topic.name(), growResult(topic.name(), Errors.TOPIC_AUTHORIZATION_FAILED, null));
            } else if (Topic.isInternal(topic.name())) {
                // More partitions would map transactional ids to other partitions than those holding their states.
                refused.put(topic.name(), growResult(topic.name(), Errors.INVALID_REQUEST, INTERNAL + topic.name()));
            } else {
                forwarded.topics().add(topic.duplicate());
            }
        }
        final CompletableFuture<CreatePartitionsResponseData> answered =
                forwarded.topics().isEmpty()
                        ? CompletableFuture.completedFuture(new CreatePartitionsResponseData())
                        : membership
                                .controller()
                                .createPartitions(forwarded)
                                .orTimeout(QuorumForwarding.timeoutOf(data.timeoutMs()), MILLISECONDS);
        return answered.handle((answer, failure) -> {
            final CreatePartitionsResponseData response = new CreatePartitionsResponseData();
            for (final CreatePartitionsRequestData.CreatePartitionsTopic topic : data.topics()) {
                if (response.results().stream().anyMatch(r -> r.name().equals(topic.name()))) {
                    continue;
                }
                CreatePartitionsResponseData.CreatePartitionsTopicResult result = refused.get(topic.name());
                if (result == null) {
                    result = answer == null
                            ? null
                            : answer.results().stream()
                                    .filter(r -> r.name().equals(topic.name()))
                                    .findFirst()
                                    .orElse(null);
                }
                response.results()
                        .add(
                                result != null
                                        ? result
                                        : growResult(
                                                topic.name(),
                                                QuorumForwarding.errorOf(failure),
                                                QuorumForwarding.reason(failure)));
            }
            return response;
        });
    }

    private static CreatePartitionsResponseData.CreatePartitionsTopicResult growResult(
            final String name, final Errors error, final String message) {
        return new CreatePartitionsResponseData.CreatePartitionsTopicResult()
                .setName(name)
                .setErrorCode(error.code())
                .setErrorMessage(message);
    }

    private CompletableFuture<DeleteTopicsResponseData> delete(
            final RequestContext context, final DeleteTopicsRequestData data, final short version) {
        // Versions before 6 name topics only, in a field the quorum's version of the request does not have.
        final List<DeleteTopicsRequestData.DeleteTopicState> named = version < 6
                ? data.topicNames().stream()
                        .map(n -> new DeleteTopicsRequestData.DeleteTopicState().setName(n))
                        .toList()
                : data.topics();
        final DeleteTopicsResponseData response = new DeleteTopicsResponseData();
        final DeleteTopicsRequestData forwarded = new DeleteTopicsRequestData().setTimeoutMs(data.timeoutMs());
        for (final DeleteTopicsRequestData.DeleteTopicState target : named) {
            final Uuid id = target.topicId() == null ? Uuid.ZERO_UUID : target.topicId();
            // By name, DELETE is checked on the name given, whether or not this broker's image has the topic yet; by
            // id, on the topic's name, so an id this broker does not know is answered here rather than forwarded
            // unchecked.
            final Optional<String> name = target.name() != null
                    ? Optional.of(target.name())
                    : membership.image().topic(id).map(TopicImage::name);
            if (name.isEmpty()) {
                response.responses()
                        .add(new DeleteTopicsResponseData.DeletableTopicResult()
                                .setName(null)
                                .setTopicId(id)
                                .setErrorCode(Errors.UNKNOWN_TOPIC_ID.code()));
            } else if (!access.allows(context, AclOperation.DELETE, ResourceType.TOPIC, name.get())) {
                // Named by id, the topic's name is not given away.
                response.responses()
                        .add(new DeleteTopicsResponseData.DeletableTopicResult()
                                .setName(target.name())
                                .setTopicId(id)
                                .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                                .setErrorMessage("not authorized to delete the topic"));
            } else if (Topic.isInternal(name.get())) {
                response.responses()
                        .add(new DeleteTopicsResponseData.DeletableTopicResult()
                                .setName(target.name())
                                .setTopicId(id)
                                .setErrorCode(Errors.INVALID_REQUEST.code())
                                .setErrorMessage(INTERNAL + name.get()));
            } else {
                forwarded.topics().add(target.duplicate().setTopicId(id));
            }
        }
        if (forwarded.topics().isEmpty()) {
            return CompletableFuture.completedFuture(response);
        }
        return membership
                .controller()
                .deleteTopics(forwarded)
                .orTimeout(QuorumForwarding.timeoutOf(data.timeoutMs()), MILLISECONDS)
                .handle((answer, failure) -> {
                    if (answer != null) {
                        answer.responses().forEach(r -> response.responses().add(r.duplicate()));
                    } else {
                        for (final DeleteTopicsRequestData.DeleteTopicState target : forwarded.topics()) {
                            response.responses()
                                    .add(new DeleteTopicsResponseData.DeletableTopicResult()
                                            .setName(target.name())
                                            .setTopicId(target.topicId())
                                            .setErrorCode(QuorumForwarding.errorOf(failure)
                                                    .code())
                                            .setErrorMessage(QuorumForwarding.reason(failure)));
                        }
                    }
                    if (version < 6) {
                        // Those versions have no topic id to answer with.
                        response.responses().forEach(r -> r.setTopicId(Uuid.ZERO_UUID));
                    }
                    return response;
                });
    }
}
