package io.isthmus.broker.cluster;

import io.isthmus.broker.api.CoordinatorLocator;
import io.isthmus.metadata.image.BrokerRegistration;
import io.isthmus.metadata.quorum.QuorumVoter;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.utils.Utils;

/**
 * The coordinator of a consumer group in a cluster: one of the voters, picked by the group id's hash as Kafka picks a
 * partition of {@code __consumer_offsets}. The voters are fixed by {@code controller.quorum.voters}, the same on every
 * node, so every broker names the same coordinator for a group without asking, and a group's committed offsets stay
 * where they were written while brokers join and leave. While that broker is fenced or unregistered the answer is
 * COORDINATOR_NOT_AVAILABLE, which clients retry.
 *
 * <p>A transactional id's coordinator is the leader of its partition of {@code __transaction_state} ({@link
 * TransactionStatePartitions}), which moves with that partition's leadership.
 */
final class ClusterCoordinators implements CoordinatorLocator {
    private final ClusterMembership membership;
    private final Supplier<Optional<TransactionStatePartitions>> transactions;
    private final List<Integer> voterIds;

    ClusterCoordinators(
            final ClusterMembership membership, final Supplier<Optional<TransactionStatePartitions>> transactions) {
        this.membership = membership;
        this.transactions = transactions;
        this.voterIds = membership.settings().quorum().voters().stream()
                .map(QuorumVoter::id)
                .sorted()
                .toList();
    }

    @Override
    public Located locate(final byte keyType, final String key, final String listenerName) {
        if (keyType == TRANSACTION) {
            return transactions
                    .get()
                    .map(t -> t.locate(key, listenerName))
                    .orElseGet(() -> Located.none(
                            Errors.COORDINATOR_NOT_AVAILABLE, "this broker coordinates no transactions yet"));
        }
        final int coordinator = coordinatorOf(key);
        final Optional<BrokerRegistration> broker = membership.image().broker(coordinator);
        if (broker.isEmpty() || broker.get().fenced()) {
            return Located.none(
                    Errors.COORDINATOR_NOT_AVAILABLE,
                    "broker " + coordinator + ", the coordinator of this group, is not available");
        }
        return ImageMetadata.endpointOf(broker.get(), listenerName)
                .map(e -> new Located(Errors.NONE, null, coordinator, e.host(), e.port()))
                .orElseGet(() -> Located.none(
                        Errors.COORDINATOR_NOT_AVAILABLE,
                        "broker " + coordinator + ", the coordinator of this group, has no listener " + listenerName));
    }

    @Override
    public boolean coordinatesHere(final byte keyType, final String key) {
        return keyType == GROUP && coordinatorOf(key) == membership.nodeId();
    }

    private int coordinatorOf(final String groupId) {
        return voterIds.get(Utils.abs(groupId.hashCode()) % voterIds.size());
    }
}
