package io.isthmus.broker.network;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Splits the byte stream into Kafka request frames: a 4-byte big-endian size, then that many bytes.
 *
 * <p>The size is checked before any of the frame is buffered ({@code failFast}), so a peer announcing a
 * huge or negative frame costs the broker nothing but the connection, which {@link KafkaConnectionHandler}
 * closes with the reason logged.
 *
 * <p>A frame must also arrive in time: from the moment its first byte is buffered, the rest must follow within {@code
 * readTimeoutMs} of the broker reading, or the decoder raises an {@link IncompleteFrameException} and the connection is
 * closed as bad input. Without it a peer that announces more bytes than it sends holds its buffer forever. Time while
 * the broker itself has stopped reading (backpressure) does not count against the peer.
 */
final class RequestFrameDecoder extends LengthFieldBasedFrameDecoder {
    private static final int SIZE_FIELD_LENGTH = 4;

    private final long readTimeoutNanos;
    private ScheduledFuture<?> partialFrameTimeout;
    /** Frames completed so far: a frame completing restarts the clock for the next one. */
    private long framesDecoded;

    /** @param readTimeoutMs the time a frame may take to arrive; 0 or less: no limit */
    RequestFrameDecoder(final int maxFrameBytes, final long readTimeoutMs) {
        super(maxFrameBytes, 0, SIZE_FIELD_LENGTH, 0, SIZE_FIELD_LENGTH, true);
        this.readTimeoutNanos = readTimeoutMs > 0 ? TimeUnit.MILLISECONDS.toNanos(readTimeoutMs) : 0;
    }

    RequestFrameDecoder(final int maxFrameBytes) {
        this(maxFrameBytes, 0);
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg) throws Exception {
        final long framesBefore = framesDecoded;
        super.channelRead(ctx, msg);
        if (readTimeoutNanos == 0) {
            return;
        }
        if (framesDecoded != framesBefore || actualReadableBytes() == 0) {
            cancelTimeout();
        }
        if (actualReadableBytes() > 0 && partialFrameTimeout == null) {
            schedule(ctx, readTimeoutNanos);
        }
    }

    /**
     * The next frame, unless the connection has stopped reading (backpressure): then frames already buffered wait here,
     * undecoded, so that a client pipelining small requests with large answers cannot make the broker answer everything
     * one socket read brought. {@link KafkaConnectionHandler} {@link #resume resumes} decoding when it reads again.
     */
    @Override
    protected Object decode(final ChannelHandlerContext ctx, final ByteBuf in) throws Exception {
        if (!ctx.channel().config().isAutoRead()) {
            return null;
        }
        final Object frame = super.decode(ctx, in);
        if (frame != null) {
            framesDecoded++;
        }
        return frame;
    }

    /**
     * Netty's decoder asks for another read when a read yielded no frame; while the connection has stopped reading that
     * would buffer the peer's whole stream, so it does not.
     */
    @Override
    public void channelReadComplete(final ChannelHandlerContext ctx) throws Exception {
        if (!ctx.channel().config().isAutoRead()) {
            ctx.fireChannelReadComplete();
            return;
        }
        super.channelReadComplete(ctx);
    }

    /**
     * Decodes the frames buffered while the connection was not reading. Called when it reads again; runs as a task of
     * the event loop, never inside a decode in progress.
     */
    static void resume(final Channel channel) {
        channel.eventLoop().execute(() -> channel.pipeline().fireChannelRead(Unpooled.EMPTY_BUFFER));
    }

    private void schedule(final ChannelHandlerContext ctx, final long delayNanos) {
        partialFrameTimeout = ctx.executor().schedule(() -> expire(ctx), delayNanos, TimeUnit.NANOSECONDS);
    }

    private void expire(final ChannelHandlerContext ctx) {
        partialFrameTimeout = null;
        if (!ctx.channel().isActive() || actualReadableBytes() == 0) {
            return;
        }
        if (!ctx.channel().config().isAutoRead()) {
            // The broker stopped reading (too many requests in flight, or answers the peer has not taken): the rest of
            // the frame may be waiting in the socket. The peer gets a full timeout once reading resumes.
            schedule(ctx, readTimeoutNanos);
            return;
        }
        ctx.fireExceptionCaught(new IncompleteFrameException(actualReadableBytes(), readTimeoutNanos));
    }

    private void cancelTimeout() {
        if (partialFrameTimeout != null) {
            partialFrameTimeout.cancel(false);
            partialFrameTimeout = null;
        }
    }

    @Override
    protected void handlerRemoved0(final ChannelHandlerContext ctx) {
        cancelTimeout();
    }

    /** A request frame began and did not complete within the read timeout. */
    static final class IncompleteFrameException extends DecoderException {
        private static final long serialVersionUID = 1L;

        IncompleteFrameException(final int bufferedBytes, final long timeoutNanos) {
            super("a request frame did not complete within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos)
                    + " ms (isthmus.request.read.timeout.ms); " + bufferedBytes + " bytes of it arrived");
        }
    }
}
