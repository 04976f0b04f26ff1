package io.isthmus.broker.api;

import io.isthmus.broker.network.RequestContext;
import io.isthmus.broker.network.Response;
import io.isthmus.broker.partition.PartitionManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Metadata: the brokers, the controller and the topics a {@link MetadataView} holds, each topic only if the principal
 * may describe it. Topics a client asks for that do not exist are created when {@code auto.create.topics.enable} is on
 * and the request allows it; the answer for such a topic says LEADER_NOT_AVAILABLE until its leaders are known, so
 * clients ask again, as Kafka answers a topic it has just created.
 */
public final class MetadataHandler implements ApiHandler {
    /** The first Metadata version that names topics by id (and so may leave a name null). */
    private static final short TOPIC_IDS_VERSION = 12;

    private final MetadataView view;
    private final boolean autoCreateTopics;
    private final AccessControl access;

    /** A single broker's handler. */
    public MetadataHandler(
            final PartitionManager partitions,
            final BrokerNode node,
            final boolean autoCreateTopics,
            final int defaultPartitions,
            final AccessControl access) {
        this(new SingleBrokerMetadata(partitions, node, defaultPartitions), autoCreateTopics, access);
    }

    public MetadataHandler(final MetadataView view, final boolean autoCreateTopics, final AccessControl access) {
        this.view = view;
        this.autoCreateTopics = autoCreateTopics;
        this.access = access;
    }

    @Override
    public Set<ApiKeys> apiKeys() {
        return Set.of(ApiKeys.METADATA);
    }

    @Override
    public CompletableFuture<Response> handle(final RequestContext context, final AbstractRequest request) {
        final MetadataRequestData data = ((MetadataRequest) request).data();
        final MetadataResponseData response =
                new MetadataResponseData().setClusterId(view.clusterId()).setControllerId(view.controllerId());
        response.brokers().addAll(view.brokers(context.listenerName()));
        if (data.includeClusterAuthorizedOperations()) {
            response.setClusterAuthorizedOperations(
                    access.authorizedOperations(context, ResourceType.CLUSTER, AccessControl.CLUSTER));
        }
        // Version 0 used an empty list for "all topics"; later versions use null.
        final boolean allTopics = data.topics() == null
                || (context.apiVersion() == 0 && data.topics().isEmpty());
        if (allTopics) {
            // As Kafka: the topics the principal may not describe are left out, not reported.
            for (final String name : view.topicNames()) {
                if (access.allows(context, AclOperation.DESCRIBE, ResourceType.TOPIC, name)) {
                    view.describe(name).ifPresent(topic -> response.topics().add(withOperations(context, data, topic)));
                }
            }
            return CompletableFuture.completedFuture(Response.of(response));
        }
        final boolean mayCreate = autoCreateTopics && (context.apiVersion() < 4 || data.allowAutoTopicCreation());
        final List<CompletableFuture<MetadataResponseData.MetadataResponseTopic>> answers = new ArrayList<>();
        for (final MetadataRequestData.MetadataRequestTopic requested : data.topics()) {
            answers.add(lookup(context, data, requested, mayCreate));
        }
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
                .thenApply(done -> {
                    for (final CompletableFuture<MetadataResponseData.MetadataResponseTopic> answer : answers) {
                        response.topics().add(answer.join());
                    }
                    return Response.of(response);
                });
    }

    /**
     * One requested topic. Topic ids are served from version 12, where a topic may be named by id alone; before it,
     * as in Kafka, a null name or a topic id is INVALID_REQUEST for that topic (answered with an empty name, since
     * those versions cannot carry a null one).
     */
    private CompletableFuture<MetadataResponseData.MetadataResponseTopic> lookup(
            final RequestContext context,
            final MetadataRequestData data,
            final MetadataRequestData.MetadataRequestTopic requested,
            final boolean mayCreate) {
        final short version = context.apiVersion();
        final Uuid id = requested.topicId() == null ? Uuid.ZERO_UUID : requested.topicId();
        final boolean byId = !Uuid.ZERO_UUID.equals(id);
        if (version < TOPIC_IDS_VERSION && (requested.name() == null || byId)) {
            return done(
                    error(requested.name() == null ? "" : requested.name(), Uuid.ZERO_UUID, Errors.INVALID_REQUEST));
        }
        if (requested.name() == null) {
            if (!byId) {
                return done(error(null, Uuid.ZERO_UUID, Errors.INVALID_REQUEST));
            }
            final Optional<String> name = view.topicName(id);
            if (name.isPresent() && !access.allows(context, AclOperation.DESCRIBE, ResourceType.TOPIC, name.get())) {
                // The name stays unsaid: an id must not reveal the topic it belongs to.
                return done(error(null, id, Errors.TOPIC_AUTHORIZATION_FAILED));
            }
            return done(name.flatMap(view::describe)
                    .map(t -> withOperations(context, data, t))
                    .orElseGet(() -> error(null, id, Errors.UNKNOWN_TOPIC_ID)));
        }
        final String name = requested.name();
        if (!access.allows(context, AclOperation.DESCRIBE, ResourceType.TOPIC, name)) {
            return done(error(name, Uuid.ZERO_UUID, Errors.TOPIC_AUTHORIZATION_FAILED));
        }
        final Optional<MetadataResponseData.MetadataResponseTopic> topic = view.describe(name);
        if (topic.isPresent() || !mayCreate) {
            return done(topic.map(t -> withOperations(context, data, t))
                    .orElseGet(() -> error(name, Uuid.ZERO_UUID, Errors.UNKNOWN_TOPIC_OR_PARTITION)));
        }
        // Kafka's rule for auto-creation: CREATE on the cluster, or on the topic itself.
        if (!access.allowsOnCluster(context, AclOperation.CREATE)
                && !access.allows(context, AclOperation.CREATE, ResourceType.TOPIC, name)) {
            return done(error(name, Uuid.ZERO_UUID, Errors.TOPIC_AUTHORIZATION_FAILED));
        }
        return view.createWithDefaults(name).handle((created, failure) -> {
            if (failure != null) {
                final Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
                return error(name, Uuid.ZERO_UUID, Errors.forException(cause));
            }
            return view.describe(name)
                    .map(t -> withOperations(context, data, t))
                    .orElseGet(() -> error(name, Uuid.ZERO_UUID, Errors.LEADER_NOT_AVAILABLE));
        });
    }

    private MetadataResponseData.MetadataResponseTopic withOperations(
            final RequestContext context,
            final MetadataRequestData data,
            final MetadataResponseData.MetadataResponseTopic topic) {
        if (data.includeTopicAuthorizedOperations()) {
            topic.setTopicAuthorizedOperations(access.authorizedOperations(context, ResourceType.TOPIC, topic.name()));
        }
        return topic;
    }

    private static CompletableFuture<MetadataResponseData.MetadataResponseTopic> done(
            final MetadataResponseData.MetadataResponseTopic topic) {
        return CompletableFuture.completedFuture(topic);
    }

    private static MetadataResponseData.MetadataResponseTopic error(
            final String name, final Uuid id, final Errors error) {
        return new MetadataResponseData.MetadataResponseTopic()
                .setName(name)
                .setTopicId(id)
                .setErrorCode(error.code());
    }
}
