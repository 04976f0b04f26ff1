package io.isthmus.broker.cluster;

import io.isthmus.client.network.KafkaConnection;
import io.isthmus.client.network.ReceiveBufferPool;
import io.isthmus.client.network.SocketBuffers;
import io.isthmus.client.security.SecuritySettings;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.IntFunction;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Requests from this broker to the others of its cluster (the transaction coordinators' WriteTxnMarkers, the partition
 * leaders' transaction verification), over each broker's first PLAINTEXT listener. Connections are pooled per broker:
 * callers on several threads each borrow one for a request and give it back. A pooled connection that fails at once
 * (its broker restarted since) is replaced by a new one for a second try; a request that timed out is not sent again
 * (the broker may have acted on it). A connection that failed is closed, not returned.
 */
final class BrokerChannels implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BrokerChannels.class);
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

    private final String clientId;
    private final IntFunction<Optional<InetSocketAddress>> addresses;
    private final ReceiveBufferPool buffers = new ReceiveBufferPool(64 << 10);
    private final Map<Integer, ConcurrentLinkedQueue<KafkaConnection>> idle = new ConcurrentHashMap<>();
    private volatile boolean closed;

    BrokerChannels(final String clientId, final IntFunction<Optional<InetSocketAddress>> addresses) {
        this.clientId = clientId;
        this.addresses = addresses;
    }

    /** Sends {@code body} to broker {@code brokerId} and waits up to {@code timeout} for its answer. */
    ApiMessage request(final int brokerId, final ApiKeys apiKey, final ApiMessage body, final Duration timeout) {
        final KafkaConnection pooled = pooled(brokerId);
        if (pooled != null) {
            try {
                return exchange(brokerId, pooled, apiKey, body, timeout);
            } catch (final TimeoutException slow) {
                throw slow;
            } catch (final RuntimeException stale) {
                LOG.debug("pooled connection to broker {} failed: {}", brokerId, stale.toString());
            }
        }
        return exchange(brokerId, open(brokerId), apiKey, body, timeout);
    }

    private ApiMessage exchange(
            final int brokerId,
            final KafkaConnection connection,
            final ApiKeys apiKey,
            final ApiMessage body,
            final Duration timeout) {
        final ApiMessage response;
        try {
            response = connection.request(apiKey, body, timeout);
        } catch (final RuntimeException e) {
            connection.close();
            throw e;
        }
        idle.computeIfAbsent(brokerId, id -> new ConcurrentLinkedQueue<>()).add(connection);
        if (closed) {
            connection.close();
        }
        return response;
    }

    private KafkaConnection pooled(final int brokerId) {
        final ConcurrentLinkedQueue<KafkaConnection> pool = idle.get(brokerId);
        KafkaConnection connection = pool == null ? null : pool.poll();
        while (connection != null && connection.isClosed()) {
            connection = pool.poll();
        }
        return connection;
    }

    private KafkaConnection open(final int brokerId) {
        if (closed) {
            throw new IllegalStateException(clientId + " is closed");
        }
        final InetSocketAddress address = addresses
                .apply(brokerId)
                .orElseThrow(() -> new IllegalStateException("no PLAINTEXT endpoint known for broker " + brokerId));
        return KafkaConnection.open(
                address, clientId, buffers, CONNECT_TIMEOUT, SecuritySettings.PLAINTEXT, SocketBuffers.DEFAULT);
    }

    @Override
    public void close() {
        closed = true;
        for (final ConcurrentLinkedQueue<KafkaConnection> pool : idle.values()) {
            KafkaConnection connection;
            while ((connection = pool.poll()) != null) {
                connection.close();
            }
        }
        buffers.close();
    }
}
