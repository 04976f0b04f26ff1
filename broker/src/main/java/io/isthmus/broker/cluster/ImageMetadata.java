package io.isthmus.broker.cluster;

import io.isthmus.broker.api.MetadataView;
import io.isthmus.metadata.image.BrokerEndpoint;
import io.isthmus.metadata.image.BrokerRegistration;
import io.isthmus.metadata.image.ClusterImage;
import io.isthmus.metadata.image.PartitionState;
import io.isthmus.metadata.image.TopicImage;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Metadata as the cluster's quorum has it: every unfenced broker that has the client's listener, a controller clients
 * can reach, and each partition's leader, leader epoch, replicas, ISR and offline replicas (those fenced or not
 * registered). A partition without a leader is answered LEADER_NOT_AVAILABLE, which clients retry.
 *
 * <p>Auto-creation never holds the request for the quorum: the creation is sent, the topic is answered
 * LEADER_NOT_AVAILABLE, and the client's next Metadata finds it (as Kafka answers a topic it has just created). One
 * creation per name is in flight at a time, and a name Kafka would refuse is refused here without a log entry.
 */
final class ImageMetadata implements MetadataView {
    private static final Logger LOG = LoggerFactory.getLogger(ImageMetadata.class);

    private final Set<String> creating = ConcurrentHashMap.newKeySet();
    private final ClusterMembership membership;
    private final int defaultPartitions;
    private final short defaultReplicationFactor;

    ImageMetadata(final ClusterMembership membership, final int defaultPartitions, final short replicationFactor) {
        this.membership = membership;
        this.defaultPartitions = defaultPartitions;
        this.defaultReplicationFactor = replicationFactor;
    }

    @Override
    public String clusterId() {
        return membership.settings().clusterId();
    }

    /**
     * The quorum's leader if clients can reach it (registered and unfenced), else this broker if it is active, else
     * any unfenced broker: admin clients send controller requests to this id, and every broker forwards them to the
     * quorum alike.
     */
    @Override
    public int controllerId() {
        final ClusterImage image = membership.image();
        final OptionalInt leader = membership.controllerId();
        if (leader.isPresent()
                && image.broker(leader.getAsInt()).map(b -> !b.fenced()).orElse(false)) {
            return leader.getAsInt();
        }
        if (membership.isActive()) {
            return membership.nodeId();
        }
        return image.unfencedBrokers().findFirst().map(BrokerRegistration::id).orElse(-1);
    }

    @Override
    public List<MetadataResponseData.MetadataResponseBroker> brokers(final String listenerName) {
        final List<MetadataResponseData.MetadataResponseBroker> brokers = new ArrayList<>();
        membership.image().unfencedBrokers().forEach(b -> endpointOf(b, listenerName)
                .ifPresent(e -> brokers.add(new MetadataResponseData.MetadataResponseBroker()
                        .setNodeId(b.id())
                        .setHost(e.host())
                        .setPort(e.port())
                        .setRack(b.rack()))));
        return brokers;
    }

    /** The endpoint of {@code broker} on the listener named {@code listenerName}, as Kafka matches them: by name. */
    static Optional<BrokerEndpoint> endpointOf(final BrokerRegistration broker, final String listenerName) {
        return broker.endpoints().stream()
                .filter(e -> e.listener().equals(listenerName))
                .findFirst();
    }

    @Override
    public Collection<String> topicNames() {
        return membership.image().topics().keySet();
    }

    @Override
    public Optional<String> topicName(final Uuid id) {
        return membership.image().topic(id).map(TopicImage::name);
    }

    @Override
    public Optional<MetadataResponseData.MetadataResponseTopic> describe(final String name) {
        final ClusterImage image = membership.image();
        return image.topic(name).map(topic -> {
            final MetadataResponseData.MetadataResponseTopic described =
                    new MetadataResponseData.MetadataResponseTopic()
                            .setName(topic.name())
                            .setTopicId(topic.id())
                            .setIsInternal(Topic.isInternal(topic.name()));
            for (int p = 0; p < topic.partitions().size(); p++) {
                final PartitionState state = topic.partition(p);
                final List<Integer> offline = state.replicas().stream()
                        .filter(r ->
                                image.broker(r).map(BrokerRegistration::fenced).orElse(true))
                        .toList();
                described
                        .partitions()
                        .add(new MetadataResponseData.MetadataResponsePartition()
                                .setErrorCode(
                                        state.hasLeader() ? Errors.NONE.code() : Errors.LEADER_NOT_AVAILABLE.code())
                                .setPartitionIndex(p)
                                .setLeaderId(state.leader())
                                .setLeaderEpoch(state.leaderEpoch())
                                .setReplicaNodes(state.replicas())
                                .setIsrNodes(state.isr())
                                .setOfflineReplicas(offline));
            }
            return described;
        });
    }

    @Override
    public CompletableFuture<Void> createWithDefaults(final String name) {
        try {
            Topic.validate(name);
        } catch (final InvalidTopicException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (!creating.add(name)) {
            return CompletableFuture.completedFuture(null);
        }
        final CreateTopicsRequestData request = new CreateTopicsRequestData();
        request.topics()
                .add(new CreateTopicsRequestData.CreatableTopic()
                        .setName(name)
                        .setNumPartitions(defaultPartitions)
                        .setReplicationFactor(defaultReplicationFactor));
        final CompletableFuture<CreateTopicsResponseData> sent;
        try {
            sent = membership.controller().createTopics(request);
        } catch (final RuntimeException e) {
            creating.remove(name);
            return CompletableFuture.failedFuture(e);
        }
        sent.whenComplete((answer, failure) -> {
            creating.remove(name);
            final CreateTopicsResponseData.CreatableTopicResult result =
                    answer == null ? null : answer.topics().find(name);
            final Errors error = result == null ? Errors.UNKNOWN_SERVER_ERROR : Errors.forCode(result.errorCode());
            if (failure != null || (error != Errors.NONE && error != Errors.TOPIC_ALREADY_EXISTS)) {
                LOG.warn(
                        "auto-creating topic {} failed: {}",
                        name,
                        failure != null
                                ? failure.toString()
                                : error + (result == null ? " (no answer for it)" : " " + result.errorMessage()));
            }
        });
        return CompletableFuture.completedFuture(null);
    }
}
