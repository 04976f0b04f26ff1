package io.isthmus.broker.cluster;

import io.isthmus.broker.partition.IsrChanges;
import io.isthmus.broker.partition.Partition;
import io.isthmus.metadata.image.BrokerRegistration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.AlterPartitionRequestData;
import org.apache.kafka.common.message.AlterPartitionResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * A leader's ISR changes, as Kafka's AlterPartition commands to the metadata quorum: each member named with the
 * broker epoch the leader knows it by (a member that restarted since must catch up again before it joins), based on
 * the partition epoch the leader holds, refused by the quorum if either moved.
 */
final class QuorumIsrChanges implements IsrChanges {
    /** An answer not come within this is given up on; the leader asks again at its next check. */
    private static final long REQUEST_TIMEOUT_SECONDS = 10;

    private final ClusterMembership membership;

    QuorumIsrChanges(final ClusterMembership membership) {
        this.membership = membership;
    }

    @Override
    public CompletableFuture<Answer> alter(
            final Partition partition, final int leaderEpoch, final int partitionEpoch, final List<Integer> isr) {
        final AlterPartitionRequestData.PartitionData change = new AlterPartitionRequestData.PartitionData()
                .setPartitionIndex(partition.topicPartition().partition())
                .setLeaderEpoch(leaderEpoch)
                .setPartitionEpoch(partitionEpoch);
        for (final int member : isr) {
            change.newIsrWithEpochs()
                    .add(new AlterPartitionRequestData.BrokerState()
                            .setBrokerId(member)
                            .setBrokerEpoch(membership
                                    .image()
                                    .broker(member)
                                    .map(BrokerRegistration::epoch)
                                    .orElse(-1L)));
        }
        final AlterPartitionRequestData request = new AlterPartitionRequestData()
                .setBrokerId(membership.nodeId())
                .setBrokerEpoch(membership.brokerEpoch());
        request.topics()
                .add(new AlterPartitionRequestData.TopicData()
                        .setTopicId(partition.topicId())
                        .setPartitions(List.of(change)));
        return membership
                .controller()
                .alterPartition(request)
                .orTimeout(REQUEST_TIMEOUT_SECONDS, TimeUnit.SECONDS)
                .thenApply(QuorumIsrChanges::answerOf);
    }

    @Override
    public boolean mayJoin(final int brokerId) {
        return membership
                .image()
                .broker(brokerId)
                .filter(broker -> !broker.fenced() && !broker.shuttingDown())
                .isPresent();
    }

    private static Answer answerOf(final AlterPartitionResponseData response) {
        if (response.errorCode() != Errors.NONE.code()) {
            return new Answer(Errors.forCode(response.errorCode()), List.of(), -1);
        }
        final AlterPartitionResponseData.PartitionData partition =
                response.topics().getFirst().partitions().getFirst();
        return new Answer(Errors.forCode(partition.errorCode()), partition.isr(), partition.partitionEpoch());
    }
}
