package io.isthmus.broker.network;

import io.isthmus.protocol.control.ControlMessage;
import io.isthmus.protocol.control.ControlRequestHeader;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;

/**
 * Serves isthmus control requests: API keys outside Kafka's range (RDMA connect, produce and consume access, release)
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
        public CompletableFuture<ControlMessage> handle(
                final long connectionId, final ControlRequestHeader header, final MemorySegment body) {
            throw new UnsupportedOperationException("no control requests: apiKey=" + header.apiKey());
        }

        @Override
        public void connectionClosed(final long connectionId) {}
    };

    /** Whether frames with this API key are control requests for {@link #handle}. */
    boolean handles(short apiKey);

    /**
     * Answers one control request.
     *
     * @param body the request body, valid only during this call
     * @return the response body; a future failing with {@link IllegalArgumentException} closes the connection as bad
     *     input
     */
    CompletableFuture<ControlMessage> handle(long connectionId, ControlRequestHeader header, MemorySegment body);

    /** The connection is gone: release what it held (RDMA sessions are bound to their TCP connection). */
    void connectionClosed(long connectionId);
}
