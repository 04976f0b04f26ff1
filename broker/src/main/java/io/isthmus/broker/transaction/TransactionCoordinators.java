package io.isthmus.broker.transaction;

import java.util.List;
import java.util.concurrent.Executor;
import org.apache.kafka.common.protocol.Errors;

/**
 * The transaction coordinators a broker runs, found by transactional id: a single broker's one coordinator, or a
 * cluster's coordinators of the {@code __transaction_state} partitions this broker leads.
 */
public interface TransactionCoordinators {
    /** The coordinator of an id here, or why there is none (NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS). */
    record Found(Errors error, TransactionCoordinator coordinator) {
        public static Found none(final Errors error) {
            return new Found(error, null);
        }
    }

    /** The coordinator of {@code transactionalId} on this broker. */
    Found coordinatorOf(String transactionalId);

    /** Every coordinator running here, for the views that span ids (ListTransactions, pending group offsets). */
    List<TransactionCoordinator> all();

    /**
     * Where requests to a coordinator run. A single broker's coordinator writes to a local log and answers on the
     * network thread; a cluster's waits for the state partition's replicas and for markers written on other brokers,
     * which must not hold a network thread (a marker sent to this same broker would need one).
     */
    Executor executor();

    /** A single broker's: {@code coordinator} for every id. */
    static TransactionCoordinators sole(final TransactionCoordinator coordinator) {
        final Found found = new Found(Errors.NONE, coordinator);
        return new TransactionCoordinators() {
            @Override
            public Found coordinatorOf(final String transactionalId) {
                return found;
            }

            @Override
            public List<TransactionCoordinator> all() {
                return List.of(coordinator);
            }

            @Override
            public Executor executor() {
                return Runnable::run;
            }
        };
    }
}
