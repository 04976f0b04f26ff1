package io.isthmus.broker.network;

import io.isthmus.broker.security.ConnectionAuthenticator;
import io.isthmus.broker.security.Unauthenticated;
import io.isthmus.protocol.control.ControlRequestHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Kafka connection: decodes request frames, hands them to the {@link RequestDispatcher} and writes the
 * responses back strictly in request order, however their futures complete. Kafka clients match responses
 * by order as well as by correlation id.
 *
 * <p>Bad input never reaches the dispatcher: an unparseable header or body, or an oversized frame, closes
 * this connection with the reason logged, and every other connection carries on. A request at a version
 * this broker does not serve gets UNSUPPORTED_VERSION (ApiVersions answers with the versions it does
 * serve, as Kafka does, so clients can downgrade).
 *
 * <p>Isthmus control requests (API keys outside Kafka's range) are recognised by their key before Kafka's header
 * parser sees them and go to the {@link ControlRequestHandler}; their answers keep their place in the response order.
 *
 * <p>Backpressure: the connection is read only while fewer than {@code maxInflight} requests wait for their answers
 * and the channel is writable, that is while the answers already written but not yet taken by the peer stay under the
 * channel's write-buffer high-water mark. A client that pipelines requests and never reads its answers therefore stops
 * being read, instead of growing the broker's outbound buffer (and the segment leases its fetch answers hold) without
 * bound. When the client goes, its long-poll fetches are cancelled rather than left waiting for their timeout.
 *
 * <p>Idleness ({@code connections.max.idle.ms}, signalled by an {@link IdleStateEvent} from the pipeline) closes a
 * connection only when no request of it is waiting for an answer and it never carried an isthmus control request: an
 * RDMA session is bound to its TCP connection and moves its data over the NIC, so a quiet socket says nothing about it.
 *
 * <p>Confined to the channel's event loop; futures completing elsewhere hop back onto it.
 */
final class KafkaConnectionHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaConnectionHandler.class);
    /** One WARN line per second at most for bad input, whichever connections send it: the rest go to DEBUG. */
    private static final LogThrottle BAD_INPUT_LOG = new LogThrottle(1_000_000_000L);

    private final RequestDispatcher dispatcher;
    private final ControlRequestHandler controlRequests;
    private final SupportedApis supportedApis;
    private final NetworkMetrics metrics;
    private final String listenerName;
    private final long connectionId;
    private final int maxInflight;
    private final ConnectionAuthenticator authenticator;
    private final ArrayDeque<PendingResponse> pending = new ArrayDeque<>();
    private final ControlRequestHeader controlHeader = new ControlRequestHeader();
    /** Whether this connection carried a control request, and so may hold an RDMA session: never closed as idle. */
    private boolean carriesControlSession;

    KafkaConnectionHandler(
            final RequestDispatcher dispatcher,
            final SupportedApis supportedApis,
            final NetworkMetrics metrics,
            final String listenerName,
            final long connectionId,
            final int maxInflight) {
        this(
                dispatcher,
                ControlRequestHandler.NONE,
                supportedApis,
                metrics,
                listenerName,
                connectionId,
                maxInflight,
                new Unauthenticated(() -> KafkaPrincipal.ANONYMOUS));
    }

    KafkaConnectionHandler(
            final RequestDispatcher dispatcher,
            final ControlRequestHandler controlRequests,
            final SupportedApis supportedApis,
            final NetworkMetrics metrics,
            final String listenerName,
            final long connectionId,
            final int maxInflight,
            final ConnectionAuthenticator authenticator) {
        this.authenticator = authenticator;
        this.dispatcher = dispatcher;
        this.controlRequests = controlRequests;
        this.supportedApis = supportedApis;
        this.metrics = metrics;
        this.listenerName = listenerName;
        this.connectionId = connectionId;
        this.maxInflight = maxInflight;
    }

    @Override
    public void channelActive(final ChannelHandlerContext ctx) {
        metrics.connectionOpened();
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx) {
        metrics.connectionClosed();
        for (final PendingResponse response : pending) {
            response.abandon();
        }
        pending.clear();
        authenticator.close();
        controlRequests.connectionClosed(connectionId);
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
        final ByteBuf frame = (ByteBuf) msg;
        final long receivedNanos = System.nanoTime();
        metrics.recordBytesIn(Integer.BYTES + frame.readableBytes());
        try {
            final ByteBuffer buffer = frame.nioBuffer();
            if (buffer.remaining() >= Short.BYTES && controlRequests.handles(buffer.getShort(buffer.position()))) {
                handleControlRequest(ctx, frame, buffer, receivedNanos);
                return;
            }
            final RequestHeader header = parseHeader(ctx, buffer);
            if (header == null) {
                return;
            }
            final PendingResponse response = new PendingResponse(header, receivedNanos);
            pending.addLast(response);
            if (!supportedApis.supports(header.apiKey(), header.apiVersion())) {
                answerUnsupportedVersion(ctx, header, response);
                return;
            }
            final AbstractRequest request;
            try {
                request = AbstractRequest.parseRequest(
                                header.apiKey(), header.apiVersion(), new ByteBufferAccessor(buffer))
                        .request;
            } catch (final RuntimeException e) {
                closeForBadInput(ctx, "malformed " + header.apiKey() + " v" + header.apiVersion() + " body: " + e);
                return;
            }
            if (header.apiKey() == ApiKeys.SASL_HANDSHAKE || header.apiKey() == ApiKeys.SASL_AUTHENTICATE) {
                answerAuthentication(ctx, response, request);
                return;
            }
            if (!authenticator.isComplete() && !authenticator.servesBeforeAuthentication(header.apiKey())) {
                closeForBadInput(ctx, header.apiKey() + " before SASL authentication completed");
                return;
            }
            final RequestContext context = new RequestContext(
                    header,
                    connectionId,
                    ctx.channel().remoteAddress(),
                    listenerName,
                    receivedNanos,
                    authenticator.principal());
            final CompletableFuture<Response> future;
            frame.retain(); // produce records are views of the frame until the handler is done with them
            try {
                future = dispatcher.dispatch(context, request);
                if (header.apiKey() == ApiKeys.FETCH) {
                    response.longPoll = future;
                }
            } catch (final RuntimeException e) {
                frame.release();
                response.failed = true;
                answerFailure(ctx, response, request, e);
                return;
            }
            future.whenComplete((result, failure) -> {
                frame.release();
                if (!ctx.channel().isActive()) {
                    // Nobody to answer (the client left, or the broker is closing): just free what it holds.
                    if (result != null) {
                        response.outcome = result;
                        response.closeLeases();
                    }
                    return;
                }
                response.failed = failure != null;
                final Runnable answer = failure == null
                        ? () -> complete(ctx, response, result)
                        : () -> answerFailure(ctx, response, request, unwrap(failure));
                if (ctx.executor().inEventLoop()) {
                    answer.run();
                } else {
                    ctx.executor().execute(answer);
                }
            });
            updateReading(ctx);
        } finally {
            ReferenceCountUtil.release(frame);
        }
    }

    /**
     * A control request: its header is read in place and its body handed on as a view of the frame, which stays
     * retained until the request is answered (perhaps later, on the RDMA datapath thread); the answer is a frame its
     * answerer filled in, written as it is.
     */
    private void handleControlRequest(
            final ChannelHandlerContext ctx, final ByteBuf frame, final ByteBuffer buffer, final long receivedNanos) {
        if (!authenticator.isComplete()) {
            closeForBadInput(ctx, "an isthmus control request before SASL authentication completed");
            return;
        }
        final MemorySegment segment = MemorySegment.ofBuffer(buffer);
        final ControlExchange exchange;
        try {
            controlHeader.wrap(segment, 0);
            exchange = new ControlExchange(
                    ctx.alloc(),
                    controlHeader.apiKey(),
                    controlHeader.apiVersion(),
                    controlHeader.correlationId(),
                    segment.asSlice(controlHeader.bodyOffset()),
                    authenticator.principal(),
                    ctx.channel().remoteAddress() instanceof InetSocketAddress inet ? inet.getAddress() : null);
        } catch (final RuntimeException e) {
            closeForBadInput(ctx, "unparseable control request header: " + e.getMessage());
            return;
        }
        carriesControlSession = true;
        final PendingResponse response = new PendingResponse(receivedNanos);
        pending.addLast(response);
        frame.retain(); // the body is a view of the frame until the request is answered
        exchange.answered().whenComplete((answer, failure) -> {
            frame.release();
            if (!ctx.channel().isActive()) {
                // Nobody to answer (the client left, or the broker is closing): just free the answer.
                if (answer != null) {
                    answer.release();
                }
                return;
            }
            final Runnable write = () -> {
                if (failure != null) {
                    closeForBadInput(
                            ctx, "control request apiKey=" + exchange.apiKey() + " failed: " + unwrap(failure));
                    return;
                }
                response.controlFrame = answer;
                complete(ctx, response, null);
            };
            if (ctx.executor().inEventLoop()) {
                write.run();
            } else {
                ctx.executor().execute(write);
            }
        });
        try {
            controlRequests.handle(connectionId, exchange);
        } catch (final RuntimeException e) {
            exchange.fail(e);
        }
        updateReading(ctx);
    }

    /**
     * Answers a SaslHandshake or SaslAuthenticate from the connection's {@link ConnectionAuthenticator}; after a failed
     * exchange the answer is the last thing the client gets: the connection closes once it is written.
     */
    private void answerAuthentication(
            final ChannelHandlerContext ctx, final PendingResponse response, final AbstractRequest request) {
        final Response answer = Response.of(authenticator.handle(request));
        final boolean failed = authenticator.failed();
        if (failed) {
            // Counted before the answer goes out: whoever hears of the failure finds it counted.
            metrics.authenticationFailed();
        }
        complete(ctx, response, answer);
        if (failed) {
            ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }
    }

    /**
     * Reads from the peer only while it has fewer than {@code maxInflight} requests unanswered and takes its answers as
     * fast as it asks for them (the channel is writable).
     */
    private void updateReading(final ChannelHandlerContext ctx) {
        final boolean read = pending.size() < maxInflight && ctx.channel().isWritable();
        if (ctx.channel().config().isAutoRead() != read) {
            ctx.channel().config().setAutoRead(read);
            if (read) {
                RequestFrameDecoder.resume(ctx.channel());
            }
        }
    }

    @Override
    public void channelWritabilityChanged(final ChannelHandlerContext ctx) {
        updateReading(ctx);
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void userEventTriggered(final ChannelHandlerContext ctx, final Object event) {
        if (event instanceof IdleStateEvent) {
            if (pending.isEmpty() && !carriesControlSession) {
                metrics.connectionClosedIdle();
                LOG.debug(
                        "closing connection {} from {}: idle for connections.max.idle.ms",
                        connectionId,
                        ctx.channel().remoteAddress());
                ctx.close();
            }
            return;
        }
        ctx.fireUserEventTriggered(event);
    }

    private RequestHeader parseHeader(final ChannelHandlerContext ctx, final ByteBuffer buffer) {
        final int start = buffer.position();
        try {
            return RequestHeader.parse(buffer);
        } catch (final RuntimeException e) {
            // A client newer than us may send ApiVersions at a version whose header we cannot parse; Kafka
            // answers it in v0 with the versions it serves, and so do we.
            if (buffer.limit() - start >= 8 && buffer.getShort(start) == ApiKeys.API_VERSIONS.id) {
                final short version = buffer.getShort(start + 2);
                final int correlationId = buffer.getInt(start + 4);
                final RequestHeader v0 = new RequestHeader(ApiKeys.API_VERSIONS, (short) 0, "", correlationId);
                final PendingResponse response = new PendingResponse(v0, System.nanoTime());
                pending.addLast(response);
                LOG.debug(
                        "ApiVersions v{} from {} is newer than this broker serves; answering in v0",
                        version,
                        ctx.channel().remoteAddress());
                complete(ctx, response, Response.of(supportedApis.unsupportedVersionResponse()));
                return null;
            }
            closeForBadInput(ctx, "unparseable request header: " + e);
            return null;
        }
    }

    private void answerUnsupportedVersion(
            final ChannelHandlerContext ctx, final RequestHeader header, final PendingResponse response) {
        if (header.apiKey() == ApiKeys.API_VERSIONS) {
            final RequestHeader v0 =
                    new RequestHeader(ApiKeys.API_VERSIONS, (short) 0, header.clientId(), header.correlationId());
            pending.removeLast();
            final PendingResponse v0Response = new PendingResponse(v0, response.receivedNanos);
            pending.addLast(v0Response);
            complete(ctx, v0Response, Response.of(supportedApis.unsupportedVersionResponse()));
            return;
        }
        // Any other API at a version we do not serve: the client ignored our ApiVersions answer, and we
        // cannot encode a response in a version we do not know. Kafka closes the connection too.
        closeForBadInput(
                ctx,
                "unsupported version: api=" + header.apiKey() + ", version=" + header.apiVersion() + ", supported="
                        + supportedApis.describe(header.apiKey()));
    }

    /**
     * Answers a request whose handling failed with the request's own error response, or, when none can be built (some
     * of kafka-clients' error responses cannot carry every valid request, a null list say), closes the connection, as
     * Kafka does with a request it cannot serve.
     */
    private void answerFailure(
            final ChannelHandlerContext ctx,
            final PendingResponse response,
            final AbstractRequest request,
            final Throwable failure) {
        final Errors error = Errors.forException(failure);
        if (error == Errors.UNKNOWN_SERVER_ERROR) {
            metrics.unexpectedFailure();
            LOG.error("{} failed on connection {}", request.apiKey(), connectionId, failure);
        } else {
            LOG.debug("{} failed on connection {}: {}", request.apiKey(), connectionId, failure.toString());
        }
        Response answer;
        try {
            answer = Response.of(request.getErrorResponse(0, failure).data());
        } catch (final UnsupportedVersionException e) {
            answer = Response.of(request.getErrorResponse(0, Errors.UNKNOWN_SERVER_ERROR.exception())
                    .data());
        } catch (final RuntimeException cannotBuild) {
            closeForBadInput(
                    ctx, "no error answer can be built for " + request.apiKey() + " (" + failure + "): " + cannotBuild);
            return;
        }
        complete(ctx, response, answer);
    }

    private void complete(final ChannelHandlerContext ctx, final PendingResponse response, final Response outcome) {
        if (outcome != null) {
            response.outcome = outcome;
        }
        if (!ctx.channel().isActive()) {
            response.discard();
            return;
        }
        boolean wrote = false;
        while (!pending.isEmpty() && pending.peekFirst().isReady()) {
            write(ctx, pending.pollFirst());
            wrote = true;
        }
        if (wrote) {
            ctx.flush();
        }
        updateReading(ctx);
    }

    private void write(final ChannelHandlerContext ctx, final PendingResponse response) {
        if (response.controlFrame != null) {
            metrics.recordBytesOut(response.controlFrame.readableBytes());
            ctx.write(response.controlFrame);
            response.controlFrame = null;
            return;
        }
        final Response outcome = response.outcome;
        metrics.recordRequest(response.header.apiKey(), System.nanoTime() - response.receivedNanos, response.failed);
        if (outcome.isNone()) {
            response.closeLeases();
            return;
        }
        final List<Object> parts;
        try {
            parts = ResponseEncoder.encode(ctx.alloc(), response.header, outcome.body());
        } catch (final RuntimeException e) {
            response.closeLeases();
            LOG.error("cannot encode {} response on connection {}", response.header.apiKey(), connectionId, e);
            ctx.close();
            return;
        }
        long bytes = 0;
        for (int i = 0; i < parts.size(); i++) {
            final Object part = parts.get(i);
            bytes += part instanceof ByteBuf buf ? buf.readableBytes() : ((SegmentFileRegion) part).count();
            final boolean last = i == parts.size() - 1;
            final ChannelPromise promise = ctx.newPromise();
            if (last) {
                promise.addListener(done -> response.closeLeases());
            }
            ctx.write(part, promise);
        }
        metrics.recordBytesOut(bytes);
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
        if (cause instanceof TooLongFrameException || cause instanceof CorruptedFrameException) {
            closeForBadInput(ctx, "bad frame size: " + cause.getMessage());
        } else if (cause instanceof RequestFrameDecoder.IncompleteFrameException) {
            closeForBadInput(ctx, cause.getMessage());
        } else if (cause instanceof IOException) {
            LOG.debug(
                    "connection {} from {} failed: {}",
                    connectionId,
                    ctx.channel().remoteAddress(),
                    cause.toString());
            ctx.close();
        } else {
            LOG.warn(
                    "closing connection {} from {}", connectionId, ctx.channel().remoteAddress(), cause);
            ctx.close();
        }
    }

    private void closeForBadInput(final ChannelHandlerContext ctx, final String reason) {
        metrics.connectionClosedForBadInput();
        if (BAD_INPUT_LOG.tryAcquire()) {
            LOG.warn(
                    "closing connection {} from {}: {} ({} more closed for bad input since the last line; logged at"
                            + " most every {} s)",
                    connectionId,
                    ctx.channel().remoteAddress(),
                    reason,
                    BAD_INPUT_LOG.takeSuppressed(),
                    BAD_INPUT_LOG.intervalSeconds());
        } else {
            LOG.debug(
                    "closing connection {} from {}: {}",
                    connectionId,
                    ctx.channel().remoteAddress(),
                    reason);
        }
        ctx.close();
    }

    private static Throwable unwrap(final Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    /** A request whose response has not been written yet, in arrival order. */
    private static final class PendingResponse {
        final RequestHeader header; // null for a control request
        final long receivedNanos;
        Response outcome;
        /** A control request's answer, size prefix included; this response owns it until it is written. */
        ByteBuf controlFrame;

        boolean failed;
        /** A fetch's answer while it may be waiting (long poll): cancelled if the client goes first. */
        CompletableFuture<Response> longPoll;

        PendingResponse(final RequestHeader header, final long receivedNanos) {
            this.header = header;
            this.receivedNanos = receivedNanos;
        }

        /** A control request's place in the response order. */
        PendingResponse(final long receivedNanos) {
            this.header = null;
            this.receivedNanos = receivedNanos;
        }

        boolean isReady() {
            return outcome != null || controlFrame != null;
        }

        /** The client went before this was written: stop waiting for it, and free what it holds. */
        void abandon() {
            if (longPoll != null && !longPoll.isDone()) {
                longPoll.cancel(false);
            }
            discard();
        }

        void discard() {
            if (outcome != null) {
                closeLeases();
            }
            if (controlFrame != null) {
                controlFrame.release();
                controlFrame = null;
            }
        }

        void closeLeases() {
            for (final AutoCloseable lease : outcome.leases()) {
                try {
                    lease.close();
                } catch (final Exception e) {
                    LOG.warn("releasing a lease of a {} response failed", header.apiKey(), e);
                }
            }
        }
    }
}
