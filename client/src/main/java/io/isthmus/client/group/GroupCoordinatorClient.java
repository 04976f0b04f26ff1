package io.isthmus.client.group;

import io.isthmus.client.cluster.BrokerConnections;
import io.isthmus.client.cluster.BrokerNode;
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
import org.apache.kafka.common.requests.FindCoordinatorRequest;

/**
 * One group's coordinator: found with FindCoordinator (retrying while the answer is retriable, up to the request
 * timeout), then asked over a connection of its own. A failed request drops the connection, so the next one looks
 * the coordinator up again. Thread-safe: requests are serialised under the connections' lock, which {@link
 * GroupOffsets} takes too for its metadata lookups over the same connections.
 */
public final class GroupCoordinatorClient {
    private final BrokerConnections connections;
    private final String groupId;
    private final Duration requestTimeout;
    private KafkaConnection coordinator;

    public GroupCoordinatorClient(
            final BrokerConnections connections, final String groupId, final Duration requestTimeout) {
        this.connections = connections;
        this.groupId = groupId;
        this.requestTimeout = requestTimeout;
    }

    public String groupId() {
        return groupId;
    }

    /** Sends {@code body} to the coordinator and waits for its answer. */
    public ApiMessage request(final ApiKeys apiKey, final ApiMessage body) {
        synchronized (connections) {
            if (coordinator == null || coordinator.isClosed()) {
                coordinator = connections.node(findCoordinator());
            }
            try {
                return coordinator.request(apiKey, body, requestTimeout);
            } catch (final RuntimeException e) {
                coordinator.close();
                coordinator = null;
                throw e;
            }
        }
    }

    /** Forgets the coordinator (it moved, or the group is done with it); the next request looks it up again. */
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
            final FindCoordinatorRequestData request =
                    new FindCoordinatorRequestData().setKeyType(FindCoordinatorRequest.CoordinatorType.GROUP.id());
            if (any.version(ApiKeys.FIND_COORDINATOR) >= 4) {
                request.setCoordinatorKeys(List.of(groupId));
            } else {
                request.setKey(groupId);
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
                // A node id of its own: the coordinator connection must not be shared with fetches.
                return new BrokerNode(Integer.MIN_VALUE + node.id(), node.host(), node.port(), null);
            }
            if (!(error.exception() instanceof RetriableException) || System.nanoTime() - deadline > 0) {
                throw error.exception("FindCoordinator failed: group=" + groupId + ", error=" + error);
            }
            try {
                Thread.sleep(100);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptException(e);
            }
        }
    }
}
