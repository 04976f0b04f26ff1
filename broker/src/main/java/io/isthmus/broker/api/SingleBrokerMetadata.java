package io.isthmus.broker.api;

import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.topic.TopicRegistry.TopicInfo;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.message.MetadataResponseData;

/** A single broker is the whole cluster, its controller and the leader of every partition, at leader epoch 0. */
public final class SingleBrokerMetadata implements MetadataView {
    private static final int LEADER_EPOCH = 0;

    private final PartitionManager partitions;
    private final BrokerNode node;
    private final ClusterNodes nodes;
    private final int defaultPartitions;

    public SingleBrokerMetadata(final PartitionManager partitions, final BrokerNode node, final int defaultPartitions) {
        this.partitions = partitions;
        this.node = node;
        this.nodes = ClusterNodes.of(node);
        this.defaultPartitions = defaultPartitions;
    }

    @Override
    public String clusterId() {
        return nodes.clusterId();
    }

    @Override
    public int controllerId() {
        return nodes.controllerId();
    }

    @Override
    public List<MetadataResponseData.MetadataResponseBroker> brokers(final String listenerName) {
        return nodes.brokers(listenerName);
    }

    @Override
    public Collection<String> topicNames() {
        return partitions.topics().topics().stream().map(TopicInfo::name).toList();
    }

    @Override
    public Optional<String> topicName(final Uuid id) {
        return partitions.topics().byId(id).map(TopicInfo::name);
    }

    @Override
    public Optional<MetadataResponseData.MetadataResponseTopic> describe(final String name) {
        return partitions.topics().byName(name).map(topic -> {
            final MetadataResponseData.MetadataResponseTopic described =
                    new MetadataResponseData.MetadataResponseTopic()
                            .setName(topic.name())
                            .setTopicId(topic.id())
                            .setIsInternal(false);
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
        });
    }

    @Override
    public CompletableFuture<Void> createWithDefaults(final String name) {
        try {
            partitions.createTopic(name, defaultPartitions);
        } catch (final TopicExistsException raced) {
            // created meanwhile by another request: as good
        } catch (final RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return CompletableFuture.completedFuture(null);
    }
}
