package io.isthmus.client.cluster;

import io.isthmus.client.network.KafkaConnection;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FindCoordinatorRequest.CoordinatorType;

/**
 * One coordinator: a consumer group's ({@link #forGroup}) or a transactional id's ({@link #forTransaction}), found with
 * FindCoordinator (retrying while the answer is retriable, up to the request timeout), then asked over a connection of
 * its own. A failed request drops the connection, so the next one looks the coordinator up again; so does {@link
 * #reset()}, which a caller uses when the coordinator answers NOT_COORDINATOR. Thread-safe: requests are serialised
 * under the connections' lock, which {@link io.isthmus.client.group.GroupOffsets} takes too for its metadata lookups
 * over the same connections.
 */
public final class CoordinatorClient {
    /**
     * Coordinator connections get node ids of their own, apart from the partition leaders' (a coordinator connection
     * must not be shared with fetches or produces) and apart per coordinator type.
     */
    private static final int GROUP_NODE_IDS = Integer.MIN_VALUE;

    private static final int TRANSACTION_NODE_IDS = Integer.MIN_VALUE + (1 << 24);

    private final BrokerConnections connections;
    private final CoordinatorType type;
    private final String key;
    private final Duration requestTimeout;
    private KafkaConnection coordinator;

    private CoordinatorClient(
            final BrokerConnections connections,
            final CoordinatorType type,
            final String key,
            final Duration requestTimeout) {
        this.connections = connections;
        this.type = type;
        this.key = key;
        this.requestTimeout = requestTimeout;
    }

    /** The coordinator of consumer group {@code groupId}. */
    public static CoordinatorClient forGroup(
            final BrokerConnections connections, final String groupId, final Duration requestTimeout) {
        return new CoordinatorClient(connections, CoordinatorType.GROUP, groupId, requestTimeout);
    }

    /** The transaction coordinator of {@code transactionalId}. */
    public static CoordinatorClient forTransaction(
            final BrokerConnections connections, final String transactionalId, final Duration requestTimeout) {
        return new CoordinatorClient(connections, CoordinatorType.TRANSACTION, transactionalId, requestTimeout);
    }

    /** The group id or transactional id this coordinator is for. */
    public String key() {
        return key;
    }

    /** Sends {@code body} to the coordinator and waits for its answer. */
    public ApiMessage request(final ApiKeys apiKey, final ApiMessage body) {
        return request(apiKey, body, apiKey.latestVersion());
    }

    /** Sends {@code body} to the coordinator, at most at {@code maxVersion}, and waits for its answer. */
    public ApiMessage request(final ApiKeys apiKey, final ApiMessage body, final short maxVersion) {
        synchronized (connections) {
            final KafkaConnection connection = connection();
            try {
                return connection.request(apiKey, body, maxVersion, requestTimeout);
            } catch (final RuntimeException e) {
                reset();
                throw e;
            }
        }
    }

    /** The version {@code apiKey} goes to the coordinator at when capped at {@code maxVersion} (finds it if needed). */
    public short version(final ApiKeys apiKey, final short maxVersion) {
        synchronized (connections) {
            return connection().version(apiKey, maxVersion);
        }
    }

    private KafkaConnection connection() {
        if (coordinator == null || coordinator.isClosed()) {
            coordinator = connections.node(findCoordinator());
        }
        return coordinator;
    }

    /** Forgets the coordinator (it moved, or the caller is done with it); the next request looks it up again. */
    public void reset() {
        synchronized (connections) {
            if (coordinator != null) {
                coordinator.close();
                coordinator = null;
            }
        }
    }

    private BrokerNode findCoordinator() {
        final long deadline = System.nanoTime() + requestTimeout.toNanos();
        while (true) {
            final KafkaConnection any = connections.any();
            final FindCoordinatorRequestData request = new FindCoordinatorRequestData().setKeyType(type.id());
            if (any.version(ApiKeys.FIND_COORDINATOR) >= 4) {
                request.setCoordinatorKeys(List.of(key));
            } else {
                request.setKey(key);
            }
            final FindCoordinatorResponseData response =
                    (FindCoordinatorResponseData) any.request(ApiKeys.FIND_COORDINATOR, request, requestTimeout);
            Errors error = Errors.forCode(response.errorCode());
            BrokerNode node = new BrokerNode(response.nodeId(), response.host(), response.port(), null);
            if (!response.coordinators().isEmpty()) {
                final FindCoordinatorResponseData.Coordinator c =
                        response.coordinators().get(0);
                error = Errors.forCode(c.errorCode());
                node = new BrokerNode(c.nodeId(), c.host(), c.port(), null);
            }
            if (error == Errors.NONE) {
                final int ids = type == CoordinatorType.TRANSACTION ? TRANSACTION_NODE_IDS : GROUP_NODE_IDS;
                return new BrokerNode(ids + node.id(), node.host(), node.port(), null);
            }
            if (!(error.exception() instanceof RetriableException) || System.nanoTime() - deadline > 0) {
                throw error.exception("FindCoordinator failed: " + describe() + ", error=" + error);
            }
            try {
                Thread.sleep(100);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptException(e);
            }
        }
    }

    private String describe() {
        return (type == CoordinatorType.TRANSACTION ? "transactionalId=" : "group=") + key;
    }
}
