package io.isthmus.broker.api;

import io.isthmus.broker.config.Endpoint;
import io.isthmus.broker.network.RequestContext;
import io.isthmus.broker.network.Response;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.topic.TopicRegistry.TopicInfo;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Metadata: this broker is the whole cluster and leads every partition. Topics a client asks for that do not
 * exist are created when {@code auto.create.topics.enable} is on and the request allows it.
 */
public final class MetadataHandler implements ApiHandler {
    private static final int LEADER_EPOCH = 0;

    /** The first Metadata version that names topics by id (and so may leave a name null). */
    private static final short TOPIC_IDS_VERSION = 12;

    private final PartitionManager partitions;
    private final BrokerNode node;
    private final boolean autoCreateTopics;
    private final int defaultPartitions;
    private final AccessControl access;

    public MetadataHandler(
            final PartitionManager partitions,
            final BrokerNode node,
            final boolean autoCreateTopics,
            final int defaultPartitions,
            final AccessControl access) {
        this.partitions = partitions;
        this.node = node;
        this.autoCreateTopics = autoCreateTopics;
        this.defaultPartitions = defaultPartitions;
        this.access = access;
    }

    @Override
    public Set<ApiKeys> apiKeys() {
        return Set.of(ApiKeys.METADATA);
    }

    @Override
    public CompletableFuture<Response> handle(final RequestContext context, final AbstractRequest request) {
        final MetadataRequestData data = ((MetadataRequest) request).data();
        final Endpoint endpoint = node.endpointFor(context.listenerName());
        final MetadataResponseData response =
                new MetadataResponseData().setClusterId(node.clusterId()).setControllerId(node.nodeId());
        response.brokers()
                .add(new MetadataResponseData.MetadataResponseBroker()
                        .setNodeId(node.nodeId())
                        .setHost(endpoint.host())
                        .setPort(endpoint.port()));
        if (data.includeClusterAuthorizedOperations()) {
            response.setClusterAuthorizedOperations(
                    access.authorizedOperations(context, ResourceType.CLUSTER, AccessControl.CLUSTER));
        }
        // Version 0 used an empty list for "all topics"; later versions use null.
        final boolean allTopics = data.topics() == null
                || (context.apiVersion() == 0 && data.topics().isEmpty());
        if (allTopics) {
            // As Kafka: the topics the principal may not describe are left out, not reported.
            for (final TopicInfo topic : partitions.topics().topics()) {
                if (access.allows(context, AclOperation.DESCRIBE, ResourceType.TOPIC, topic.name())) {
                    response.topics().add(describe(context, data, topic));
                }
            }
            return CompletableFuture.completedFuture(Response.of(response));
        }
        final boolean mayCreate = autoCreateTopics && (context.apiVersion() < 4 || data.allowAutoTopicCreation());
        for (final MetadataRequestData.MetadataRequestTopic requested : data.topics()) {
            response.topics().add(lookup(context, data, requested, mayCreate));
        }
        return CompletableFuture.completedFuture(Response.of(response));
    }

    /**
     * One requested topic. Topic ids are served from version 12, where a topic may be named by id alone; before it,
     * as in Kafka, a null name or a topic id is INVALID_REQUEST for that topic (answered with an empty name, since
     * those versions cannot carry a null one).
     */
    private MetadataResponseData.MetadataResponseTopic lookup(
            final RequestContext context,
            final MetadataRequestData data,
            final MetadataRequestData.MetadataRequestTopic requested,
            final boolean mayCreate) {
        final short version = context.apiVersion();
        final Uuid id = requested.topicId() == null ? Uuid.ZERO_UUID : requested.topicId();
        final boolean byId = !Uuid.ZERO_UUID.equals(id);
        if (version < TOPIC_IDS_VERSION && (requested.name() == null || byId)) {
            return error(requested.name() == null ? "" : requested.name(), Uuid.ZERO_UUID, Errors.INVALID_REQUEST);
        }
        if (requested.name() == null) {
            if (!byId) {
                return error(null, Uuid.ZERO_UUID, Errors.INVALID_REQUEST);
            }
            final Optional<TopicInfo> topic = partitions.topics().byId(id);
            if (topic.isPresent()
                    && !access.allows(
                            context,
                            AclOperation.DESCRIBE,
                            ResourceType.TOPIC,
                            topic.get().name())) {
                // The name stays unsaid: an id must not reveal the topic it belongs to.
                return error(null, id, Errors.TOPIC_AUTHORIZATION_FAILED);
            }
            return topic.map(t -> describe(context, data, t)).orElseGet(() -> error(null, id, Errors.UNKNOWN_TOPIC_ID));
        }
        final String name = requested.name();
        if (!access.allows(context, AclOperation.DESCRIBE, ResourceType.TOPIC, name)) {
            return error(name, Uuid.ZERO_UUID, Errors.TOPIC_AUTHORIZATION_FAILED);
        }
        Optional<TopicInfo> topic = partitions.topics().byName(name);
        if (topic.isEmpty() && mayCreate) {
            // Kafka's rule for auto-creation: CREATE on the cluster, or on the topic itself.
            if (!access.allowsOnCluster(context, AclOperation.CREATE)
                    && !access.allows(context, AclOperation.CREATE, ResourceType.TOPIC, name)) {
                return error(name, Uuid.ZERO_UUID, Errors.TOPIC_AUTHORIZATION_FAILED);
            }
            try {
                topic = Optional.of(partitions.createTopic(name, defaultPartitions));
            } catch (final TopicExistsException raced) {
                topic = partitions.topics().byName(name);
            } catch (final ApiException e) {
                return error(name, Uuid.ZERO_UUID, Errors.forException(e));
            }
        }
        return topic.map(t -> describe(context, data, t))
                .orElseGet(() -> error(name, Uuid.ZERO_UUID, Errors.UNKNOWN_TOPIC_OR_PARTITION));
    }

    private MetadataResponseData.MetadataResponseTopic describe(
            final RequestContext context, final MetadataRequestData data, final TopicInfo topic) {
        final MetadataResponseData.MetadataResponseTopic described = new MetadataResponseData.MetadataResponseTopic()
                .setName(topic.name())
                .setTopicId(topic.id())
                .setIsInternal(false);
        if (data.includeTopicAuthorizedOperations()) {
            described.setTopicAuthorizedOperations(
                    access.authorizedOperations(context, ResourceType.TOPIC, topic.name()));
        }
        final List<Integer> replicas = List.of(node.nodeId());
        for (int p = 0; p < topic.partitions(); p++) {
            described
                    .partitions()
                    .add(new MetadataResponseData.MetadataResponsePartition()
                            .setPartitionIndex(p)
                            .setLeaderId(node.nodeId())
                            .setLeaderEpoch(LEADER_EPOCH)
                            .setReplicaNodes(replicas)
                            .setIsrNodes(replicas)
                            .setOfflineReplicas(List.of()));
        }
        return described;
    }

    private static MetadataResponseData.MetadataResponseTopic error(
            final String name, final Uuid id, final Errors error) {
        return new MetadataResponseData.MetadataResponseTopic()
                .setName(name)
                .setTopicId(id)
                .setErrorCode(error.code());
    }
}
