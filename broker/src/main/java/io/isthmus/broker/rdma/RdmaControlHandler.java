package io.isthmus.broker.rdma;

import io.isthmus.broker.network.ControlExchange;
import io.isthmus.broker.network.ControlRequestHandler;
import io.isthmus.protocol.control.ConsumeAccessRequest;
import io.isthmus.protocol.control.ConsumeAccessResponse;
import io.isthmus.protocol.control.ControlApiKeys;
import io.isthmus.protocol.control.ControlErrorCodes;
import io.isthmus.protocol.control.ProduceAccessRequest;
import io.isthmus.protocol.control.ProduceAccessResponse;
import io.isthmus.protocol.control.RdmaConnectRequest;
import io.isthmus.protocol.control.RdmaConnectResponse;
import io.isthmus.protocol.control.ReleaseAccessRequest;
import io.isthmus.protocol.control.ReleaseAccessResponse;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.LongAdder;

/**
 * Serves the isthmus control requests: wraps each request's flyweight over its frame on the network thread, where a
 * malformed one fails (and its connection is closed), hands it to the {@link RdmaDatapath} (which owns all RDMA state
 * and answers on its own thread, reading the request in the frame the exchange keeps), and answers RDMA_UNAVAILABLE
 * with the reason when RDMA is off, so a {@code transport=auto} client learns why and stays on TCP.
 *
 * <p>Counts its invocations: the proof that RDMA consumers polling their metadata slots cost the broker no request
 * handling at all.
 */
public final class RdmaControlHandler implements ControlRequestHandler {
    private final RdmaDatapath datapath;
    private final String unavailableReason;
    private final LongAdder invocations = new LongAdder();

    /** @param datapath the running datapath, or null when RDMA is unavailable for {@code unavailableReason} */
    RdmaControlHandler(final RdmaDatapath datapath, final String unavailableReason) {
        this.datapath = datapath;
        this.unavailableReason = unavailableReason;
    }

    @Override
    public boolean handles(final short apiKey) {
        return apiKey >= ControlApiKeys.RDMA_CONNECT && apiKey <= ControlApiKeys.RELEASE_ACCESS;
    }

    /** Called by the network threads: the request flyweights are one per request, as the exchange is. */
    @Override
    public void handle(final long connectionId, final ControlExchange exchange) {
        invocations.increment();
        ControlRequestHandler.requireVersion(exchange);
        final MemorySegment body = exchange.body();
        switch (exchange.apiKey()) {
            case ControlApiKeys.RDMA_CONNECT -> {
                final RdmaConnectRequest request = new RdmaConnectRequest().wrap(body, 0);
                if (datapath != null) {
                    datapath.connect(connectionId, request, exchange);
                } else {
                    exchange.answer(new RdmaConnectResponse(), RdmaConnectResponse.length(unavailableReason))
                            .errorCode(ControlErrorCodes.RDMA_UNAVAILABLE)
                            .reason(unavailableReason);
                    exchange.complete();
                }
            }
            case ControlApiKeys.PRODUCE_ACCESS -> {
                final ProduceAccessRequest request = new ProduceAccessRequest().wrap(body, 0);
                if (datapath != null) {
                    datapath.produceAccess(connectionId, request, exchange);
                } else {
                    exchange.answer(new ProduceAccessResponse(), ProduceAccessResponse.LENGTH)
                            .errorCode(ControlErrorCodes.RDMA_UNAVAILABLE);
                    exchange.complete();
                }
            }
            case ControlApiKeys.CONSUME_ACCESS -> {
                final ConsumeAccessRequest request = new ConsumeAccessRequest().wrap(body, 0);
                if (datapath != null) {
                    datapath.consumeAccess(connectionId, request, exchange);
                } else {
                    exchange.answer(new ConsumeAccessResponse(), ConsumeAccessResponse.LENGTH)
                            .errorCode(ControlErrorCodes.RDMA_UNAVAILABLE);
                    exchange.complete();
                }
            }
            case ControlApiKeys.RELEASE_ACCESS -> {
                final ReleaseAccessRequest request = new ReleaseAccessRequest().wrap(body, 0);
                if (datapath != null) {
                    datapath.release(connectionId, request, exchange);
                } else {
                    exchange.answer(new ReleaseAccessResponse(), ReleaseAccessResponse.LENGTH)
                            .errorCode(ControlErrorCodes.RDMA_UNAVAILABLE);
                    exchange.complete();
                }
            }
            default -> throw new IllegalArgumentException("unknown control request: apiKey=" + exchange.apiKey());
        }
    }

    @Override
    public void connectionClosed(final long connectionId) {
        if (datapath != null) {
            datapath.connectionClosed(connectionId);
        }
    }

    /** Control requests handled since start. */
    public long invocations() {
        return invocations.sum();
    }
}
