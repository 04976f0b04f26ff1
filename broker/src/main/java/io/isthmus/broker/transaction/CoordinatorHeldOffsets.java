package io.isthmus.broker.transaction;

import io.isthmus.broker.group.CommittedOffset;
import io.isthmus.broker.group.TransactionalOffsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * A single broker's transactional offsets: its one transaction coordinator, which also coordinates every group, keeps
 * them in the transaction's state and applies them to the group when it completes the commit.
 */
public final class CoordinatorHeldOffsets implements TransactionalOffsets {
    private final TransactionCoordinator coordinator;

    public CoordinatorHeldOffsets(final TransactionCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public CompletableFuture<Errors> stage(
            final String transactionalId,
            final long producerId,
            final short producerEpoch,
            final String groupId,
            final Map<TopicPartition, CommittedOffset> offsets) {
        return CompletableFuture.completedFuture(
                coordinator.stageOffsets(transactionalId, producerId, producerEpoch, groupId, offsets));
    }

    @Override
    public Set<TopicPartition> pending(final String groupId) {
        return coordinator.pendingOffsetPartitions(groupId);
    }
}
