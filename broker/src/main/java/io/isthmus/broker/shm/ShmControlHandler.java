package io.isthmus.broker.shm;

import io.isthmus.broker.network.ControlExchange;
import io.isthmus.broker.network.ControlRequestHandler;
import io.isthmus.protocol.control.ConsumeAccessRequest;
import io.isthmus.protocol.control.ControlApiKeys;
import io.isthmus.protocol.control.ControlErrorCodes;
import io.isthmus.protocol.control.ReleaseAccessRequest;
import io.isthmus.protocol.control.ReleaseAccessResponse;
import io.isthmus.protocol.control.ShmAttachRequest;
import io.isthmus.protocol.control.ShmAttachResponse;
import io.isthmus.protocol.control.ShmConsumeAccessResponse;
import io.isthmus.protocol.control.ShmProduceAccessRequest;
import io.isthmus.protocol.control.ShmProduceAccessResponse;
import io.isthmus.protocol.control.ShmProduceRequest;
import io.isthmus.protocol.control.ShmProduceResponse;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.LongAdder;

/**
 * Serves the shared-memory control requests on the network thread that read them (access requests are rare: one per
 * segment a consumer reads; a producer's doorbells, one per batch, append on that thread as a TCP produce does): wraps each request's flyweight over its frame, where a malformed one fails and its connection is
 * closed, and hands it to the {@link ShmControlPlane}; answers SHM_UNAVAILABLE with the reason when shared memory is off,
 * so a {@code transport=auto} client learns why and goes on to the next transport.
 *
 * <p>Counts its invocations: the proof that shared-memory consumers polling their slots cost the broker no request
 * handling at all (producers ring a doorbell per batch, and are counted too).
 */
public final class ShmControlHandler implements ControlRequestHandler {
    private final ShmControlPlane plane;
    private final String unavailableReason;
    private final LongAdder invocations = new LongAdder();

    /** @param plane the running control plane, or null when shared memory is off for {@code unavailableReason} */
    ShmControlHandler(final ShmControlPlane plane, final String unavailableReason) {
        this.plane = plane;
        this.unavailableReason = unavailableReason;
    }

    @Override
    public boolean handles(final short apiKey) {
        return apiKey >= ControlApiKeys.SHM_ATTACH && apiKey <= ControlApiKeys.SHM_PRODUCE;
    }

    @Override
    public void handle(final long connectionId, final ControlExchange exchange) {
        invocations.increment();
        ControlRequestHandler.requireVersion(exchange);
        final MemorySegment body = exchange.body();
        switch (exchange.apiKey()) {
            case ControlApiKeys.SHM_ATTACH -> {
                final ShmAttachRequest request = new ShmAttachRequest().wrap(body, 0);
                if (plane != null) {
                    plane.attach(connectionId, request, exchange);
                } else {
                    exchange.answer(new ShmAttachResponse(), ShmAttachResponse.length(unavailableReason))
                            .errorCode(ControlErrorCodes.SHM_UNAVAILABLE)
                            .detail(unavailableReason);
                    exchange.complete();
                }
            }
            case ControlApiKeys.SHM_CONSUME_ACCESS -> {
                final ConsumeAccessRequest request = new ConsumeAccessRequest().wrap(body, 0);
                if (plane != null) {
                    plane.consumeAccess(connectionId, request, exchange);
                } else {
                    exchange.answer(new ShmConsumeAccessResponse(), ShmConsumeAccessResponse.length(null))
                            .errorCode(ControlErrorCodes.SHM_UNAVAILABLE);
                    exchange.complete();
                }
            }
            case ControlApiKeys.SHM_RELEASE_ACCESS -> {
                final ReleaseAccessRequest request = new ReleaseAccessRequest().wrap(body, 0);
                if (plane != null) {
                    plane.release(connectionId, request, exchange);
                } else {
                    exchange.answer(new ReleaseAccessResponse(), ReleaseAccessResponse.LENGTH)
                            .errorCode(ControlErrorCodes.SHM_UNAVAILABLE);
                    exchange.complete();
                }
            }
            case ControlApiKeys.SHM_PRODUCE_ACCESS -> {
                final ShmProduceAccessRequest request = new ShmProduceAccessRequest().wrap(body, 0);
                if (plane != null) {
                    plane.produceAccess(connectionId, request, exchange);
                } else {
                    exchange.answer(new ShmProduceAccessResponse(), ShmProduceAccessResponse.length(unavailableReason))
                            .errorCode(ControlErrorCodes.SHM_UNAVAILABLE)
                            .detail(unavailableReason);
                    exchange.complete();
                }
            }
            case ControlApiKeys.SHM_PRODUCE -> {
                final ShmProduceRequest request = new ShmProduceRequest().wrap(body, 0);
                if (plane != null) {
                    plane.produce(connectionId, request, exchange);
                } else {
                    exchange.answer(new ShmProduceResponse(), ShmProduceResponse.length(unavailableReason))
                            .errorCode(ControlErrorCodes.SHM_UNAVAILABLE)
                            .detail(unavailableReason);
                    exchange.complete();
                }
            }
            default -> throw new IllegalArgumentException("unknown control request: apiKey=" + exchange.apiKey());
        }
    }

    @Override
    public void connectionClosed(final long connectionId) {
        if (plane != null) {
            plane.connectionClosed(connectionId);
        }
    }

    /** Control requests handled since start. */
    public long invocations() {
        return invocations.sum();
    }
}
