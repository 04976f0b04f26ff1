package io.isthmus.broker.api;

import io.isthmus.broker.config.Endpoint;
import org.apache.kafka.common.protocol.Errors;

/**
 * Which broker coordinates a consumer group or a transactional id (FindCoordinator). A single broker coordinates
 * everything; in a cluster each key has one coordinator that every broker names alike.
 */
@FunctionalInterface
public interface CoordinatorLocator {
    /** FindCoordinator's key types. */
    byte GROUP = 0;

    byte TRANSACTION = 1;

    /**
     * The coordinator of {@code key}, as reached over the listener a request came in on.
     *
     * @param keyType {@link #GROUP} or {@link #TRANSACTION}
     */
    Located locate(byte keyType, String key, String listenerName);

    /**
     * Whether this broker coordinates {@code key} now: NONE if it does, otherwise the error its requests are answered
     * with. A group coordinated elsewhere gets NOT_COORDINATOR, so a client sent astray finds the coordinator again
     * rather than split its group in two; one whose coordinator here is still reading its offsets gets
     * COORDINATOR_LOAD_IN_PROGRESS, which clients retry here.
     */
    default Errors coordination(final byte keyType, final String key) {
        return Errors.NONE;
    }

    /**
     * A coordinator found, or the error that says why none can be named now.
     *
     * @param message the error's explanation for the client, or null
     */
    record Located(Errors error, String message, int nodeId, String host, int port) {
        /** Served here, wherever "here" is reached: for a handler that only needs to know it may serve the key. */
        public static final Located HERE = new Located(Errors.NONE, null, -1, "", -1);

        public static Located at(final int nodeId, final Endpoint endpoint) {
            return new Located(Errors.NONE, null, nodeId, endpoint.host(), endpoint.port());
        }

        public static Located none(final Errors error, final String message) {
            return new Located(error, message, -1, "", -1);
        }
    }

    /** A single broker: it coordinates every group and transactional id. */
    static CoordinatorLocator thisBroker(final BrokerNode node) {
        return (keyType, key, listenerName) -> Located.at(node.nodeId(), node.endpointFor(listenerName));
    }
}
