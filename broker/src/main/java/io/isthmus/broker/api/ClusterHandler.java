package io.isthmus.broker.api;

import io.isthmus.broker.network.RequestContext;
import io.isthmus.broker.network.Response;
import io.isthmus.broker.topic.TopicRegistry;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeConfigsRequest;
import org.apache.kafka.common.requests.DescribeConfigsResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * DescribeCluster and DescribeConfigs, as far as AdminClient's basics need them: the one broker, and the
 * effective settings of the broker and of its topics (every topic has the broker's log settings).
 */
public final class ClusterHandler implements ApiHandler {
    private static final byte BROKER_ENDPOINT_TYPE = 1;

    private final BrokerNode node;
    private final ClusterNodes cluster;
    private final TopicRegistry topics;
    private final Map<String, String> brokerSettings;
    private final Map<String, String> topicSettings;
    private final AccessControl access;

    /** A single broker's handler: it is the whole cluster. */
    public ClusterHandler(
            final BrokerNode node,
            final TopicRegistry topics,
            final Map<String, String> brokerSettings,
            final Map<String, String> topicSettings,
            final AccessControl access) {
        this(node, ClusterNodes.of(node), topics, brokerSettings, topicSettings, access);
    }

    /**
     * @param node this broker, whose settings DescribeConfigs shows
     * @param cluster the brokers and controller DescribeCluster shows
     * @param brokerSettings every broker setting with its effective value
     * @param topicSettings the settings every topic has, under Kafka's topic-level names
     */
    public ClusterHandler(
            final BrokerNode node,
            final ClusterNodes cluster,
            final TopicRegistry topics,
            final Map<String, String> brokerSettings,
            final Map<String, String> topicSettings,
            final AccessControl access) {
        this.access = access;
        this.node = node;
        this.cluster = cluster;
        this.topics = topics;
        this.brokerSettings = new TreeMap<>(brokerSettings);
        this.topicSettings = new TreeMap<>(topicSettings);
    }

    @Override
    public Set<ApiKeys> apiKeys() {
        return Set.of(ApiKeys.DESCRIBE_CLUSTER, ApiKeys.DESCRIBE_CONFIGS);
    }

    @Override
    public CompletableFuture<Response> handle(final RequestContext context, final AbstractRequest request) {
        return CompletableFuture.completedFuture(Response.of(
                switch (request) {
                    case DescribeClusterRequest describe -> describeCluster(context, describe.data());
                    case DescribeConfigsRequest describe -> describeConfigs(context, describe.data());
                    default -> throw new IllegalArgumentException("not a cluster request: " + request.apiKey());
                }));
    }

    /** Served to everyone, as Kafka does; the cluster's authorized operations only when asked for. */
    private DescribeClusterResponseData describeCluster(
            final RequestContext context, final DescribeClusterRequestData data) {
        final DescribeClusterResponseData response = new DescribeClusterResponseData()
                .setClusterId(cluster.clusterId())
                .setControllerId(cluster.controllerId())
                .setEndpointType(BROKER_ENDPOINT_TYPE);
        if (data.includeClusterAuthorizedOperations()) {
            response.setClusterAuthorizedOperations(
                    access.authorizedOperations(context, ResourceType.CLUSTER, AccessControl.CLUSTER));
        }
        for (final MetadataResponseData.MetadataResponseBroker broker : cluster.brokers(context.listenerName())) {
            response.brokers()
                    .add(new DescribeClusterResponseData.DescribeClusterBroker()
                            .setBrokerId(broker.nodeId())
                            .setHost(broker.host())
                            .setPort(broker.port())
                            .setRack(broker.rack()));
        }
        return response;
    }

    private DescribeConfigsResponseData describeConfigs(
            final RequestContext context, final DescribeConfigsRequestData data) {
        final DescribeConfigsResponseData response = new DescribeConfigsResponseData();
        for (final DescribeConfigsRequestData.DescribeConfigsResource resource : data.resources()) {
            final DescribeConfigsResponseData.DescribeConfigsResult result =
                    new DescribeConfigsResponseData.DescribeConfigsResult()
                            .setResourceType(resource.resourceType())
                            .setResourceName(resource.resourceName());
            response.results().add(result);
            final ConfigResource.Type type = ConfigResource.Type.forId(resource.resourceType());
            // Kafka's rule: DESCRIBE_CONFIGS on the topic, or on the cluster for a broker's settings.
            if (type == ConfigResource.Type.TOPIC
                    && !access.allows(
                            context, AclOperation.DESCRIBE_CONFIGS, ResourceType.TOPIC, resource.resourceName())) {
                result.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                        .setErrorMessage(
                                "not authorized to describe the configs of topic '" + resource.resourceName() + "'");
                continue;
            }
            if (type == ConfigResource.Type.BROKER && !access.allowsOnCluster(context, AclOperation.DESCRIBE_CONFIGS)) {
                result.setErrorCode(Errors.CLUSTER_AUTHORIZATION_FAILED.code())
                        .setErrorMessage("not authorized to describe the broker's configs");
                continue;
            }
            final Map<String, String> settings;
            final DescribeConfigsResponse.ConfigSource source;
            if (type == ConfigResource.Type.BROKER
                    && (resource.resourceName().isEmpty()
                            || resource.resourceName().equals(Integer.toString(node.nodeId())))) {
                settings = brokerSettings;
                source = DescribeConfigsResponse.ConfigSource.STATIC_BROKER_CONFIG;
            } else if (type == ConfigResource.Type.TOPIC
                    && topics.byName(resource.resourceName()).isPresent()) {
                settings = topicSettings;
                source = DescribeConfigsResponse.ConfigSource.DEFAULT_CONFIG;
            } else {
                final Errors error =
                        type == ConfigResource.Type.TOPIC ? Errors.UNKNOWN_TOPIC_OR_PARTITION : Errors.INVALID_REQUEST;
                result.setErrorCode(error.code())
                        .setErrorMessage("no " + type + " resource named '" + resource.resourceName() + "'");
                continue;
            }
            settings.forEach((name, value) -> {
                if (resource.configurationKeys() == null
                        || resource.configurationKeys().contains(name)) {
                    result.configs()
                            .add(new DescribeConfigsResponseData.DescribeConfigsResourceResult()
                                    .setName(name)
                                    .setValue(value)
                                    .setReadOnly(true)
                                    .setConfigSource(source.id())
                                    .setIsSensitive(false));
                }
            });
        }
        return response;
    }
}
