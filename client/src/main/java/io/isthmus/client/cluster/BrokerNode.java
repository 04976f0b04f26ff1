package io.isthmus.client.cluster;

import java.net.InetSocketAddress;

/** A broker as Metadata describes it. */
public record BrokerNode(int id, String host, int port, String rack) {
    public InetSocketAddress address() {
        return new InetSocketAddress(host, port);
    }
}
