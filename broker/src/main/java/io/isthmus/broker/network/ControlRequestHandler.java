package io.isthmus.broker.network;

import io.isthmus.protocol.control.ControlApiKeys;
import java.util.List;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;

/**
 * Serves isthmus control requests: API keys outside Kafka's range (RDMA connect, produce and consume access, release;
 * shared-memory attach, consume access, release)
 * that share the Kafka connection and its framing. The connection handler consults it before Kafka's header parser,
 * which rejects keys it does not know, and writes the answers in request order with the Kafka responses.
 */
public interface ControlRequestHandler {
    /** Serves no control request: every frame goes to the Kafka parser. */
    ControlRequestHandler NONE = new ControlRequestHandler() {
        @Override
        public boolean handles(final short apiKey) {
            return false;
        }

        @Override
        public void handle(final long connectionId, final ControlExchange exchange) {
            throw new UnsupportedOperationException("no control requests: apiKey=" + exchange.apiKey());
        }

        @Override
        public void connectionClosed(final long connectionId) {}
    };

    /**
     * Serves the requests of both handlers (their API keys do not overlap: RDMA's and shared memory's), each from the
     * one that {@link #handles} it; a closed connection is reported to both.
     */
    static ControlRequestHandler either(final ControlRequestHandler first, final ControlRequestHandler second) {
        return new ControlRequestHandler() {
            @Override
            public boolean handles(final short apiKey) {
                return first.handles(apiKey) || second.handles(apiKey);
            }

            @Override
            public void handle(final long connectionId, final ControlExchange exchange) {
                (first.handles(exchange.apiKey()) ? first : second).handle(connectionId, exchange);
            }

            @Override
            public void connectionClosed(final long connectionId) {
                try {
                    first.connectionClosed(connectionId);
                } finally {
                    second.connectionClosed(connectionId);
                }
            }
        };
    }

    /**
     * Refuses a request of a version other than the one control version.
     *
     * @throws IllegalArgumentException naming the key and versions (its connection is closed, as for bad input)
     */
    static void requireVersion(final ControlExchange exchange) {
        if (exchange.apiVersion() != ControlApiKeys.VERSION) {
            throw new IllegalArgumentException("unsupported control request version: apiKey=" + exchange.apiKey()
                    + " version=" + exchange.apiVersion() + " supported=" + ControlApiKeys.VERSION);
        }
    }

    /** Lists {@code keys} in an ApiVersions answer at the one control version; returns {@code versions}. */
    static ApiVersionsResponseData advertise(final ApiVersionsResponseData versions, final List<Short> keys) {
        for (final short key : keys) {
            versions.apiKeys()
                    .add(new ApiVersion()
                            .setApiKey(key)
                            .setMinVersion(ControlApiKeys.VERSION)
                            .setMaxVersion(ControlApiKeys.VERSION));
        }
        return versions;
    }

    /** Whether frames with this API key are control requests for {@link #handle}. */
    boolean handles(short apiKey);

    /**
     * Answers one control request: fills {@link ControlExchange#answer the exchange's answer} and completes it, now or
     * later, on any thread. The request body stays readable until then.
     *
     * @throws IllegalArgumentException if the request is malformed (an unknown version, a truncated body): the
     *     connection is closed as for bad input, as it is when the exchange fails
     */
    void handle(long connectionId, ControlExchange exchange);

    /** The connection is gone: release what it held (RDMA sessions are bound to their TCP connection). */
    void connectionClosed(long connectionId);
}
