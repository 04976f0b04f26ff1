package io.isthmus.client.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.junit.jupiter.api.Test;

/** Metadata from a broker whose image lags must not undo a leader change the client already saw (KIP-320). */
class ClusterMetadataTest {
    private static final Uuid ORDERS = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");
    private static final Uuid RECREATED = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAg");

    @Test
    void aPartitionNamedWithAnOlderLeaderEpochKeepsTheLeaderAlreadySeen() {
        // Broker 2 took partition 0 over in epoch 5, and broker 1 left the cluster.
        final ClusterMetadata seen =
                ClusterMetadata.from(response(List.of(2, 3), topic(ORDERS, partition(0, 2, 5), partition(1, 3, 7))));
        // Broker 3 lags: it still names broker 1, epoch 4, for partition 0, but is current for partition 1.
        final ClusterMetadata lagging =
                ClusterMetadata.from(response(List.of(1, 2, 3), topic(ORDERS, partition(0, 1, 4), partition(1, 2, 8))));

        final ClusterMetadata merged = lagging.keepingNewerLeadersOf(seen);

        assertThat(merged.topic("orders").partitions().get(0).leader()).isEqualTo(2);
        assertThat(merged.topic("orders").partitions().get(0).leaderEpoch()).isEqualTo(5);
        assertThat(merged.topic("orders").partitions().get(1).leader())
                .as("a newer epoch is taken as it comes")
                .isEqualTo(2);
        assertThat(merged.nodes().keySet()).containsExactlyInAnyOrder(1, 2, 3);
    }

    @Test
    void aKeptLeaderMissingFromTheLaggingAnswerKeepsItsAddress() {
        final ClusterMetadata seen = ClusterMetadata.from(response(List.of(4), topic(ORDERS, partition(0, 4, 9))));
        final ClusterMetadata lagging = ClusterMetadata.from(response(List.of(1), topic(ORDERS, partition(0, 1, 8))));

        final ClusterMetadata merged = lagging.keepingNewerLeadersOf(seen);

        assertThat(merged.topic("orders").leader(0)).isEqualTo(4);
        assertThat(merged.node(4)).isEqualTo(seen.node(4));
    }

    @Test
    void aRefreshOfOtherTopicsInBetweenForgetsNoLeaderEpoch() {
        final ClusterMetadata orders = ClusterMetadata.from(response(List.of(1, 2), topic(ORDERS, partition(0, 2, 5))));
        final ClusterMetadata payments = ClusterMetadata.from(response(
                List.of(1, 2),
                new MetadataResponseTopic()
                        .setName("payments")
                        .setTopicId(RECREATED)
                        .setPartitions(List.of(partition(0, 1, 3)))));
        final ClusterMetadata seen = orders.updatedWith(payments);
        assertThat(seen.topics().keySet()).containsExactlyInAnyOrder("orders", "payments");

        final ClusterMetadata lagging =
                ClusterMetadata.from(response(List.of(1, 2), topic(ORDERS, partition(0, 1, 4))));
        assertThat(lagging.keepingNewerLeadersOf(seen).topic("orders").leader(0))
                .isEqualTo(2);
    }

    @Test
    void equalOrNewerEpochsAndARecreatedTopicAreTakenAsTheyCome() {
        final ClusterMetadata seen = ClusterMetadata.from(response(List.of(1, 2), topic(ORDERS, partition(0, 1, 6))));

        final ClusterMetadata same = ClusterMetadata.from(response(List.of(1, 2), topic(ORDERS, partition(0, 2, 6))));
        assertThat(same.keepingNewerLeadersOf(seen)).isSameAs(same);

        final ClusterMetadata recreated =
                ClusterMetadata.from(response(List.of(1, 2), topic(RECREATED, partition(0, 2, 0))));
        assertThat(recreated.keepingNewerLeadersOf(seen).topic("orders").leader(0))
                .as("a topic under a new id starts its epochs again")
                .isEqualTo(2);

        assertThat(seen.keepingNewerLeadersOf(null)).isSameAs(seen);
    }

    @Test
    void aBrokerNodeResolvesItsAddressOnceOnFirstUseNotOnEveryCall() {
        final BrokerNode node = new BrokerNode(1, "127.0.0.1", 9092, null);
        assertThat(node.address()).isSameAs(node.address());
        assertThat(node.address().isUnresolved()).isFalse();
        assertThat(node).isEqualTo(new BrokerNode(1, "127.0.0.1", 9092, null));
        // FindCoordinator's error answer names no broker: a node all the same, until its error is read.
        assertThat(new BrokerNode(-1, "", -1, null).id()).isEqualTo(-1);
    }

    private static MetadataResponseData response(final List<Integer> brokers, final MetadataResponseTopic topic) {
        final MetadataResponseData response =
                new MetadataResponseData().setClusterId("c").setControllerId(1);
        for (final int id : brokers) {
            response.brokers()
                    .add(new MetadataResponseBroker()
                            .setNodeId(id)
                            .setHost("127.0.0.1")
                            .setPort(9000 + id));
        }
        response.topics().add(topic);
        return response;
    }

    private static MetadataResponseTopic topic(final Uuid id, final MetadataResponsePartition... partitions) {
        return new MetadataResponseTopic().setName("orders").setTopicId(id).setPartitions(List.of(partitions));
    }

    private static MetadataResponsePartition partition(final int index, final int leader, final int epoch) {
        return new MetadataResponsePartition()
                .setPartitionIndex(index)
                .setLeaderId(leader)
                .setLeaderEpoch(epoch)
                .setReplicaNodes(List.of(1, 2, 3))
                .setIsrNodes(List.of(1, 2, 3));
    }
}
