package io.isthmus.broker.api;

import io.isthmus.broker.config.Endpoint;
import java.util.List;

/**
 * This broker as clients see it: its id, its cluster and the endpoint of each listener. A client is always
 * told the endpoint of the listener it came in on, as Kafka does. The endpoints are known only once the
 * listeners are bound (a configured port 0 picks one), hence {@link #advertise}.
 */
public final class BrokerNode {
    private final int nodeId;
    private final String clusterId;
    private volatile List<Endpoint> endpoints = List.of();

    public BrokerNode(final int nodeId, final String clusterId) {
        this.nodeId = nodeId;
        this.clusterId = clusterId;
    }

    public int nodeId() {
        return nodeId;
    }

    public String clusterId() {
        return clusterId;
    }

    public void advertise(final List<Endpoint> advertised) {
        if (advertised.isEmpty()) {
            throw new IllegalArgumentException("a broker needs at least one endpoint");
        }
        this.endpoints = List.copyOf(advertised);
    }

    public List<Endpoint> endpoints() {
        return endpoints;
    }

    public Endpoint endpointFor(final String listenerName) {
        final List<Endpoint> current = endpoints;
        for (final Endpoint endpoint : current) {
            if (endpoint.listenerName().equals(listenerName)) {
                return endpoint;
            }
        }
        return current.getFirst();
    }
}
