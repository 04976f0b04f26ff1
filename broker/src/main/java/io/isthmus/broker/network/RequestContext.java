package io.isthmus.broker.network;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * What a request handler may know about a request besides its body.
 *
 * @param header the parsed request header (API key, version, correlation id, client id)
 * @param connectionId a broker-unique id of the connection, stable for its lifetime
 * @param clientAddress the peer's address
 * @param listenerName the listener the request arrived on
 * @param receivedNanos {@link System#nanoTime()} when the frame was complete
 * @param principal who sent it: the SASL user, the TLS client certificate's subject, or {@link
 *     KafkaPrincipal#ANONYMOUS}
 */
public record RequestContext(
        RequestHeader header,
        long connectionId,
        SocketAddress clientAddress,
        String listenerName,
        long receivedNanos,
        KafkaPrincipal principal) {
    public ApiKeys apiKey() {
        return header.apiKey();
    }

    public short apiVersion() {
        return header.apiVersion();
    }

    public String clientId() {
        return header.clientId();
    }

    /** The peer's IP address, which ACLs name as their host; null if the peer is not on an IP network. */
    public InetAddress clientHost() {
        return clientAddress instanceof InetSocketAddress inet ? inet.getAddress() : null;
    }
}
