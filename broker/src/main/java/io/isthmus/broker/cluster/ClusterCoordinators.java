package io.isthmus.broker.cluster;

import io.isthmus.broker.api.CoordinatorLocator;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.kafka.common.protocol.Errors;

/**
 * The coordinators of a cluster, Kafka's way: a consumer group's is the leader of its partition of {@code
 * __consumer_offsets} ({@link GroupOffsetPartitions}), a transactional id's the leader of its partition of {@code
 * __transaction_state} ({@link TransactionStatePartitions}); both move with their partition's leadership, and clients
 * told NOT_COORDINATOR find them again.
 */
final class ClusterCoordinators implements CoordinatorLocator {
    private final GroupOffsetPartitions groups;
    private final Supplier<Optional<TransactionStatePartitions>> transactions;

    ClusterCoordinators(
            final GroupOffsetPartitions groups, final Supplier<Optional<TransactionStatePartitions>> transactions) {
        this.groups = groups;
        this.transactions = transactions;
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
        return groups.locate(key, listenerName);
    }

    @Override
    public Errors coordination(final byte keyType, final String key) {
        return keyType == GROUP ? groups.coordination(key) : Errors.NONE;
    }
}
