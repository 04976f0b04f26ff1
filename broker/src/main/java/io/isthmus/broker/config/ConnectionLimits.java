package io.isthmus.broker.config;

import java.net.InetAddress;
import java.util.Map;

/**
 * What one client may cost the broker's network layer, under Kafka's setting names where Kafka has them.
 *
 * @param maxRequestBytes {@code socket.request.max.bytes}: the largest request frame; a larger size prefix closes the
 *     connection before any of the frame is buffered
 * @param maxInflightRequests {@code isthmus.max.inflight.requests.per.connection}: requests read and not yet answered
 *     before the broker stops reading the connection
 * @param idleTimeoutMs {@code connections.max.idle.ms}: a connection with nothing read, nothing written and no request
 *     waiting for that long is closed (0 or less: never). A connection that carries an RDMA session is exempt: its
 *     data moves over the NIC, so a quiet socket says nothing about it
 * @param requestReadTimeoutMs {@code isthmus.request.read.timeout.ms}: how long a request frame may take from its first
 *     byte to its last while the broker is reading, before the connection is closed as bad input (0 or less: never)
 * @param maxConnections {@code max.connections}: connections open at once on all listeners; one more is closed at once
 * @param maxConnectionsPerIp {@code max.connections.per.ip}: connections open at once from one address
 * @param maxConnectionsPerIpOverrides {@code max.connections.per.ip.overrides}: per-address exceptions to the above
 * @param receiveBufferBytes {@code socket.receive.buffer.bytes}: each connection's kernel receive buffer (-1: the
 *     system's, which grows to {@code net.ipv4.tcp_rmem}'s maximum, tens of MB, for a client that sends faster than the
 *     broker reads)
 * @param sendBufferBytes {@code socket.send.buffer.bytes}: each connection's kernel send buffer (-1: the system's)
 */
public record ConnectionLimits(
        int maxRequestBytes,
        int maxInflightRequests,
        long idleTimeoutMs,
        long requestReadTimeoutMs,
        int maxConnections,
        int maxConnectionsPerIp,
        Map<InetAddress, Integer> maxConnectionsPerIpOverrides,
        int receiveBufferBytes,
        int sendBufferBytes) {

    /** Kafka's {@code connections.max.idle.ms} default: ten minutes. */
    public static final long DEFAULT_IDLE_TIMEOUT_MS = 600_000L;
    /** Time enough for a {@code socket.request.max.bytes} frame over a slow link; a stalled frame costs no more. */
    public static final long DEFAULT_REQUEST_READ_TIMEOUT_MS = 30_000L;
    /** Kafka's {@code socket.receive.buffer.bytes} default (and its send buffer's, which isthmus leaves to the system). */
    public static final int DEFAULT_SOCKET_BUFFER_BYTES = 100 * 1024;
    /** The system's socket buffer size. */
    public static final int SYSTEM_SOCKET_BUFFER = -1;

    public ConnectionLimits {
        if (maxRequestBytes < 1 || maxInflightRequests < 1 || maxConnections < 1 || maxConnectionsPerIp < 1) {
            throw new IllegalArgumentException("connection limits must be at least 1: maxRequestBytes="
                    + maxRequestBytes + " maxInflightRequests=" + maxInflightRequests + " maxConnections="
                    + maxConnections + " maxConnectionsPerIp=" + maxConnectionsPerIp);
        }
        maxConnectionsPerIpOverrides = Map.copyOf(maxConnectionsPerIpOverrides);
    }

    /** The given frame and in-flight limits with Kafka's defaults for the rest (no connection cap). */
    public static ConnectionLimits of(final int maxRequestBytes, final int maxInflightRequests) {
        return new ConnectionLimits(
                maxRequestBytes,
                maxInflightRequests,
                DEFAULT_IDLE_TIMEOUT_MS,
                DEFAULT_REQUEST_READ_TIMEOUT_MS,
                Integer.MAX_VALUE,
                Integer.MAX_VALUE,
                Map.of(),
                DEFAULT_SOCKET_BUFFER_BYTES,
                SYSTEM_SOCKET_BUFFER);
    }

    /** The most connections {@code address} may hold at once. */
    public int maxConnectionsFrom(final InetAddress address) {
        return maxConnectionsPerIpOverrides.getOrDefault(address, maxConnectionsPerIp);
    }
}
