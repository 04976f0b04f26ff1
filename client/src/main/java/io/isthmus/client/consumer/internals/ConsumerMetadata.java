package io.isthmus.client.consumer.internals;

import io.isthmus.client.cluster.BrokerConnections;
import io.isthmus.client.cluster.BrokerNode;
import io.isthmus.client.cluster.ClusterMetadata;
import io.isthmus.client.cluster.TopicMetadata;
import io.isthmus.client.consumer.internals.SubscriptionState.PartitionState;
import java.time.Duration;
import java.util.Set;
import org.apache.kafka.common.Uuid;

/**
 * Which broker leads each assigned partition, and its topic id. Anything that finds the picture out of date (an
 * assignment change, a failed fetch, a partition error, an RDMA leader not in the cluster view) calls {@link
 * #requestUpdate()}; the consumer refreshes it once at the start of the next poll round rather than at every failure.
 */
public final class ConsumerMetadata {
    private final BrokerConnections connections;
    private final Duration timeout;
    private boolean updateRequested = true;
    private boolean severalBrokers;

    public ConsumerMetadata(final BrokerConnections connections, final Duration timeout) {
        this.connections = connections;
        this.timeout = timeout;
    }

    /** Leaders or topic ids may have changed: refresh before the next fetch. */
    public void requestUpdate() {
        updateRequested = true;
    }

    public boolean updateRequested() {
        return updateRequested;
    }

    /** Refreshes leaders and topic ids of the assigned partitions if an update was requested. */
    public void updateIfRequested(final SubscriptionState subscriptions) {
        if (!updateRequested) {
            return;
        }
        final Set<String> topics = subscriptions.assignedTopics();
        if (topics.isEmpty()) {
            updateRequested = false;
            return;
        }
        final ClusterMetadata metadata = connections.awaitTopics(topics, timeout);
        severalBrokers |= metadata.nodes().size() > 1;
        for (final PartitionState state : subscriptions.partitions()) {
            final TopicMetadata topic = metadata.topic(state.topic());
            state.leader(
                    topic == null ? -1 : topic.leader(state.partition()),
                    topic == null ? Uuid.ZERO_UUID : topic.topicId());
        }
        updateRequested = false;
    }

    /**
     * Whether some cluster view so far named more than one broker: a partition's leadership can move. Remembered, since
     * a later view may list one broker while the others are down or fenced.
     */
    public boolean knowsOtherBrokers() {
        if (!severalBrokers) {
            final ClusterMetadata metadata = connections.metadata();
            severalBrokers = metadata != null && metadata.nodes().size() > 1;
        }
        return severalBrokers;
    }

    /** The broker leading the partition, or null when the cluster view does not know it. */
    public BrokerNode leader(final PartitionState state) {
        final ClusterMetadata metadata = connections.metadata();
        return metadata == null ? null : metadata.node(state.leader());
    }
}
