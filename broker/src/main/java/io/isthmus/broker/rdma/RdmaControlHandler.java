package io.isthmus.broker.rdma;

import io.isthmus.broker.network.ControlRequestHandler;
import io.isthmus.protocol.control.ConsumeAccessRequest;
import io.isthmus.protocol.control.ConsumeAccessResponse;
import io.isthmus.protocol.control.ControlApiKeys;
import io.isthmus.protocol.control.ControlErrorCodes;
import io.isthmus.protocol.control.ControlMessage;
import io.isthmus.protocol.control.ControlRequestHeader;
import io.isthmus.protocol.control.ProduceAccessRequest;
import io.isthmus.protocol.control.ProduceAccessResponse;
import io.isthmus.protocol.control.RdmaConnectRequest;
import io.isthmus.protocol.control.RdmaConnectResponse;
import io.isthmus.protocol.control.ReleaseAccessRequest;
import io.isthmus.protocol.control.ReleaseAccessResponse;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;

/**
 * Serves the isthmus control requests: decodes them on the network thread, hands them to the {@link RdmaDatapath}
 * (which owns all RDMA state), and answers RDMA_UNAVAILABLE with the reason when RDMA is off, so a {@code
 * transport=auto} client learns why and stays on TCP.
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

    @Override
    public CompletableFuture<ControlMessage> handle(
            final long connectionId, final ControlRequestHeader header, final MemorySegment body) {
        invocations.increment();
        if (header.apiVersion() != ControlApiKeys.VERSION) {
            throw new IllegalArgumentException("unsupported control request version: apiKey=" + header.apiKey()
                    + " version=" + header.apiVersion() + " supported=" + ControlApiKeys.VERSION);
        }
        return switch (header.apiKey()) {
            case ControlApiKeys.RDMA_CONNECT -> {
                final RdmaConnectRequest request = RdmaConnectRequest.decode(body, 0);
                yield datapath == null
                        ? done(RdmaConnectResponse.error(ControlErrorCodes.RDMA_UNAVAILABLE, unavailableReason))
                        : datapath.connect(connectionId, request);
            }
            case ControlApiKeys.PRODUCE_ACCESS -> {
                final ProduceAccessRequest request = ProduceAccessRequest.decode(body, 0);
                yield datapath == null
                        ? done(ProduceAccessResponse.error(ControlErrorCodes.RDMA_UNAVAILABLE))
                        : datapath.produceAccess(connectionId, request);
            }
            case ControlApiKeys.CONSUME_ACCESS -> {
                final ConsumeAccessRequest request = ConsumeAccessRequest.decode(body, 0);
                yield datapath == null
                        ? done(ConsumeAccessResponse.error(ControlErrorCodes.RDMA_UNAVAILABLE))
                        : datapath.consumeAccess(connectionId, request);
            }
            case ControlApiKeys.RELEASE_ACCESS -> {
                final ReleaseAccessRequest request = ReleaseAccessRequest.decode(body, 0);
                yield datapath == null
                        ? done(new ReleaseAccessResponse(ControlErrorCodes.RDMA_UNAVAILABLE))
                        : datapath.release(connectionId, request);
            }
            default -> throw new IllegalArgumentException("unknown control request: apiKey=" + header.apiKey());
        };
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

    private static CompletableFuture<ControlMessage> done(final ControlMessage message) {
        return CompletableFuture.completedFuture(message);
    }
}
