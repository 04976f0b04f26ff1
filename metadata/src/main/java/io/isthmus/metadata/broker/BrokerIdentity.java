package io.isthmus.metadata.broker;

import io.isthmus.metadata.image.BrokerEndpoint;
import java.util.List;
import java.util.Objects;

/**
 * What a broker registers as.
 *
 * @param id its {@code node.id}
 * @param clusterId its {@code cluster.id}
 * @param endpoints the listeners it advertises
 * @param rack its {@code broker.rack}, or null
 */
public record BrokerIdentity(int id, String clusterId, List<BrokerEndpoint> endpoints, String rack) {
    public BrokerIdentity {
        Objects.requireNonNull(clusterId, "clusterId");
        endpoints = List.copyOf(endpoints);
    }
}
