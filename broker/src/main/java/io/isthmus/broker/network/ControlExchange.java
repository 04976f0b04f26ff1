package io.isthmus.broker.network;

import io.isthmus.protocol.control.ControlFlyweight;
import io.isthmus.protocol.control.ControlFrame;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * One control request on its way through the broker, from the frame it arrived in to the frame that answers it.
 *
 * <ul>
 *   <li><b>Request.</b> {@link #body()} is a view of the request frame, which the connection keeps retained until the
 *       exchange is completed or failed: a request answered later (on the datapath thread, or after waiting for a
 *       roll) reads live memory through its flyweight, and nothing is copied. Whoever answers reads the request before
 *       completing, never after.
 *   <li><b>Response.</b> Whoever answers asks for the answer's frame with {@link #answer}: a buffer from the channel's
 *       allocator holding the size prefix and the response header, with the response flyweight wrapped over the body;
 *       the answerer sets the fields and calls {@link #complete()}, and the connection writes that buffer as it is, in
 *       request order.
 * </ul>
 *
 * <p>Answered by one thread at a time (the network thread, or the datapath thread it was handed to); {@link
 * #answered()} carries the frame over to the connection's event loop.
 */
public final class ControlExchange {
    private final ByteBufAllocator allocator;
    private final short apiKey;
    private final short apiVersion;
    private final int correlationId;
    private final MemorySegment body;
    private final KafkaPrincipal principal;
    private final InetAddress clientHost;
    private final CompletableFuture<ByteBuf> answered = new CompletableFuture<>();
    private ByteBuf answer;

    /**
     * @param allocator where the answer's frame comes from
     * @param body the request body, valid until this exchange is completed or failed
     * @param principal who sent it, as the connection authenticated it: RDMA access is granted to that principal only
     * @param clientHost the sender's address, which ACLs may name
     */
    public ControlExchange(
            final ByteBufAllocator allocator,
            final short apiKey,
            final short apiVersion,
            final int correlationId,
            final MemorySegment body,
            final KafkaPrincipal principal,
            final InetAddress clientHost) {
        this.allocator = allocator;
        this.apiKey = apiKey;
        this.apiVersion = apiVersion;
        this.correlationId = correlationId;
        this.body = body;
        this.principal = principal;
        this.clientHost = clientHost;
    }

    public KafkaPrincipal principal() {
        return principal;
    }

    /** The sender's IP address, or null if it is not on an IP network. */
    public InetAddress clientHost() {
        return clientHost;
    }

    public short apiKey() {
        return apiKey;
    }

    public short apiVersion() {
        return apiVersion;
    }

    public int correlationId() {
        return correlationId;
    }

    /** The request body: a view of the request frame, valid until this exchange is completed or failed. */
    public MemorySegment body() {
        return body;
    }

    /**
     * Allocates the answer's frame for a body of {@code bodyLength} bytes, with its size prefix and response header
     * written, and wraps {@code response} over the body for encoding (zeroed). Asking again replaces the frame.
     *
     * @return {@code response}, to set the answer's fields on before {@link #complete()}
     */
    public <T extends ControlFlyweight<T>> T answer(final T response, final int bodyLength) {
        releaseAnswer();
        final int frameLength = ControlFrame.RESPONSE_BODY_OFFSET + bodyLength;
        final ByteBuf frame = allocator.directBuffer(frameLength, frameLength);
        answer = frame;
        frame.writerIndex(frameLength);
        final MemorySegment segment = MemorySegment.ofBuffer(frame.nioBuffer(0, frameLength));
        ControlFrame.putResponseHeader(segment, 0, correlationId, bodyLength);
        return response.wrapForEncode(segment, 0L + ControlFrame.RESPONSE_BODY_OFFSET);
    }

    /**
     * The answer is filled in: hands its frame to the connection. Completing an exchange that already failed (the
     * connection gave up on it) frees the frame.
     *
     * @throws IllegalStateException if no answer was asked for
     */
    public void complete() {
        final ByteBuf frame = answer;
        if (frame == null) {
            throw new IllegalStateException("control request completed without an answer: apiKey=" + apiKey
                    + " correlationId=" + correlationId);
        }
        answer = null;
        if (!answered.complete(frame)) {
            frame.release();
        }
    }

    /** The request cannot be answered: the connection is closed, as for bad input. Frees an answer begun. */
    public void fail(final Throwable failure) {
        releaseAnswer();
        answered.completeExceptionally(failure);
    }

    /** The answer's frame (the connection owns it from here), or the failure. */
    public CompletableFuture<ByteBuf> answered() {
        return answered;
    }

    private void releaseAnswer() {
        if (answer != null) {
            answer.release();
            answer = null;
        }
    }

    @Override
    public String toString() {
        return "ControlExchange{apiKey=" + apiKey + ", correlationId=" + correlationId + ", answered="
                + answered.isDone() + '}';
    }
}
