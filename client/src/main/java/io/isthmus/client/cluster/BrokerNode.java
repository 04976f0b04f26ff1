package io.isthmus.client.cluster;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * A broker as Metadata (or FindCoordinator) describes it. Its socket address is resolved once, on first use: fetchers
 * compare it with their readers' brokers on every poll, and each {@code new InetSocketAddress(host, port)} would
 * allocate and look the name up again. Not when the node is made: an answer naming no broker (FindCoordinator's error,
 * port -1) is a node too, until its error is read. A node lives as long as the metadata that named it, so a broker
 * that moves is found at its new address after the next refresh.
 */
public final class BrokerNode {
    private final int id;
    private final String host;
    private final int port;
    private final String rack;
    /**
     * Resolved on first use. Threads that race to it each resolve and store an equal address; InetSocketAddress is
     * immutable (final fields), so any of them may be read safely without a lock.
     */
    private InetSocketAddress address;

    public BrokerNode(final int id, final String host, final int port, final String rack) {
        this.id = id;
        this.host = host;
        this.port = port;
        this.rack = rack;
    }

    public int id() {
        return id;
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    /** The rack, or null if the broker has none. */
    public String rack() {
        return rack;
    }

    /** The broker's address, resolved on the first call that resolves it (unresolved until the name resolves). */
    public InetSocketAddress address() {
        InetSocketAddress resolved = address;
        if (resolved == null) {
            resolved = new InetSocketAddress(host, port);
            if (!resolved.isUnresolved()) {
                // A name that did not resolve is looked up again next time, as before the cache.
                address = resolved;
            }
        }
        return resolved;
    }

    @Override
    public boolean equals(final Object o) {
        return o instanceof BrokerNode other
                && id == other.id
                && port == other.port
                && Objects.equals(host, other.host)
                && Objects.equals(rack, other.rack);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, host, port, rack);
    }

    @Override
    public String toString() {
        return "BrokerNode[id=" + id + ", host=" + host + ", port=" + port + ", rack=" + rack + ']';
    }
}
