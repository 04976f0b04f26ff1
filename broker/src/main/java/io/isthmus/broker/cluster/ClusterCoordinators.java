package io.isthmus.broker.cluster;

import io.isthmus.broker.api.CoordinatorLocator;
import io.isthmus.metadata.image.BrokerRegistration;
import io.isthmus.metadata.quorum.QuorumVoter;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.utils.Utils;

/**
 * The coordinator of a consumer group in a cluster: one of the voters, picked by the group id's hash as Kafka picks a
 * partition of {@code __consumer_offsets}. The voters are fixed by {@code controller.quorum.voters}, the same on every
 * node, so every broker names the same coordinator for a group without asking, and a group's committed offsets stay
 * where they were written while brokers join and leave. While that broker is fenced or unregistered the answer is
 * COORDINATOR_NOT_AVAILABLE, which clients retry.
 *
 * <p>Transactions are not coordinated across brokers yet (a coordinator would have to write its markers into
 * partitions other brokers lead): FindCoordinator for a transactional id is refused with the reason, which
 * kafka-clients reports to the application as a fatal error.
 */
final class ClusterCoordinators implements CoordinatorLocator {
    static final String NO_TRANSACTIONS =
            "transactions are not served by an isthmus cluster yet (process.roles is set);"
                    + " use a single broker for transactional producers";

    private final ClusterMembership membership;
    private final List<Integer> voterIds;

    ClusterCoordinators(final ClusterMembership membership) {
        this.membership = membership;
        this.voterIds = membership.settings().quorum().voters().stream()
                .map(QuorumVoter::id)
                .sorted()
                .toList();
    }

    @Override
    public Located locate(final byte keyType, final String key, final String listenerName) {
        if (keyType == TRANSACTION) {
            return Located.none(Errors.UNSUPPORTED_VERSION, NO_TRANSACTIONS);
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
