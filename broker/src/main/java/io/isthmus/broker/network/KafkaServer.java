package io.isthmus.broker.network;

import io.isthmus.broker.config.ConnectionLimits;
import io.isthmus.broker.config.Endpoint;
import io.isthmus.broker.security.ListenerSecurity;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TCP side of the broker: Kafka's wire protocol on every configured listener, served by Netty.
 *
 * <p>One boss thread accepts; {@code num.network.threads} event loops decode frames, run the dispatcher's
 * synchronous work and write responses. Each connection is confined to one event loop. What one client may cost
 * (connections, frame size and time, requests in flight, idleness) is bounded by the {@link ConnectionLimits}.
 */
public final class KafkaServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaServer.class);
    /**
     * Answers written and not yet taken by the peer, in bytes (file regions of fetch answers included), above which the
     * connection stops being read and below which it is read again. A client that never reads can make the broker hold
     * this much plus one answer; a consumer with one fetch in flight never notices (its answer alone may pass the mark,
     * and the next fetch is only read once it is taken).
     */
    static final WriteBufferWaterMark OUTBOUND_WATER_MARK = new WriteBufferWaterMark(128 * 1024, 256 * 1024);

    private final EventLoopGroup bossGroup;
    private final EventLoopGroup workerGroup;
    private final List<Channel> serverChannels = new ArrayList<>();
    private final List<Endpoint> boundEndpoints = new ArrayList<>();
    private final NetworkMetrics metrics = new NetworkMetrics();
    private final AtomicLong connectionIds = new AtomicLong();

    private final ConnectionLimits limits;
    private final ConnectionAdmission admission;
    private final ChannelGroup openChannels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);

    private KafkaServer(final int networkThreads, final ConnectionLimits limits) {
        this.bossGroup = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        this.workerGroup = new MultiThreadIoEventLoopGroup(networkThreads, NioIoHandler.newFactory());
        this.limits = limits;
        this.admission = new ConnectionAdmission(limits, metrics);
    }

    /**
     * Binds every listener, each secured as {@code security} says for its name (PLAINTEXT when it does not say), and
     * starts serving, with isthmus control requests going to {@code controlRequests}.
     *
     * @throws InterruptedException if interrupted while binding
     * @throws IllegalStateException naming the listener that could not be bound
     */
    public static KafkaServer start(
            final List<Endpoint> listeners,
            final Map<String, ListenerSecurity> security,
            final int networkThreads,
            final ConnectionLimits limits,
            final SupportedApis supportedApis,
            final RequestDispatcher dispatcher,
            final ControlRequestHandler controlRequests)
            throws InterruptedException {
        final KafkaServer server = new KafkaServer(networkThreads, limits);
        try {
            for (final Endpoint listener : listeners) {
                server.bind(
                        listener,
                        security.getOrDefault(listener.listenerName(), ListenerSecurity.PLAINTEXT),
                        supportedApis,
                        dispatcher,
                        controlRequests);
            }
        } catch (final RuntimeException | InterruptedException e) {
            server.close();
            throw e;
        }
        return server;
    }

    private void bind(
            final Endpoint listener,
            final ListenerSecurity security,
            final SupportedApis supportedApis,
            final RequestDispatcher dispatcher,
            final ControlRequestHandler controlRequests)
            throws InterruptedException {
        final ServerBootstrap bootstrap = new ServerBootstrap()
                .group(bossGroup, workerGroup)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true);
        if (limits.receiveBufferBytes() > 0) {
            // On the listening socket: accepted ones inherit it, and the window scale offered in the handshake fits it.
            bootstrap.option(ChannelOption.SO_RCVBUF, limits.receiveBufferBytes());
        }
        if (limits.sendBufferBytes() > 0) {
            bootstrap.childOption(ChannelOption.SO_SNDBUF, limits.sendBufferBytes());
        }
        bootstrap
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.MESSAGE_SIZE_ESTIMATOR, ResponseSizeEstimator.INSTANCE)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, OUTBOUND_WATER_MARK)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(final SocketChannel channel) {
                        openChannels.add(channel); // a ChannelGroup drops a channel when it closes
                        final ChannelPipeline pipeline = channel.pipeline();
                        pipeline.addLast("admission", admission.gate());
                        final SslHandler tls = security.newTlsHandler(channel.alloc());
                        if (tls != null) {
                            pipeline.addLast("tls", tls);
                            pipeline.addLast("file-regions", new FileRegionCopier());
                        }
                        if (limits.idleTimeoutMs() > 0) {
                            pipeline.addLast(
                                    "idle", new IdleStateHandler(0, 0, limits.idleTimeoutMs(), TimeUnit.MILLISECONDS));
                        }
                        pipeline.addLast(
                                        "frames",
                                        new RequestFrameDecoder(
                                                limits.maxRequestBytes(), limits.requestReadTimeoutMs()))
                                .addLast(
                                        "kafka",
                                        new KafkaConnectionHandler(
                                                dispatcher,
                                                controlRequests,
                                                supportedApis,
                                                metrics,
                                                listener.listenerName(),
                                                connectionIds.incrementAndGet(),
                                                limits.maxInflightRequests(),
                                                security.newAuthenticator(tls)));
                    }
                });
        final Channel channel;
        try {
            channel = bootstrap.bind(listener.host(), listener.port()).sync().channel();
        } catch (final RuntimeException e) {
            throw new IllegalStateException("cannot listen on " + listener + ": " + e.getMessage(), e);
        }
        serverChannels.add(channel);
        final Endpoint bound = listener.withPort(((InetSocketAddress) channel.localAddress()).getPort());
        boundEndpoints.add(bound);
        LOG.info("listening on {} ({})", bound, security.protocol());
    }

    /** The listeners as bound: a configured port 0 shows the port the system chose. */
    public List<Endpoint> boundEndpoints() {
        return List.copyOf(boundEndpoints);
    }

    /**
     * Bytes of answers written and not yet taken by their clients, over every connection (fetch answers' file regions
     * counted by their length): what clients that do not read make the broker hold. Each connection stops being read
     * once its share passes {@link #OUTBOUND_WATER_MARK}'s high mark, so it holds at most that plus one answer.
     */
    public long queuedAnswerBytes() {
        long queued = 0;
        for (final Channel channel : openChannels) {
            final ChannelOutboundBuffer outbound = channel.unsafe().outboundBuffer();
            if (outbound != null) {
                queued += outbound.totalPendingWriteBytes();
            }
        }
        return queued;
    }

    public NetworkMetrics metrics() {
        return metrics;
    }

    /**
     * Stops accepting, closes every connection and stops the event loops. The connections are closed here, not left to
     * the event loops' shutdown: a broker closed in a running process (a test's cluster, an embedded broker) was seen
     * to leave accepted connections open with no loop reading them, so their clients waited for answers that never
     * came instead of seeing the broker go and moving to another.
     */
    @Override
    public void close() {
        for (final Channel channel : serverChannels) {
            channel.close().awaitUninterruptibly();
        }
        openChannels.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        bossGroup.shutdownGracefully(0, 5, TimeUnit.SECONDS).awaitUninterruptibly();
        workerGroup.shutdownGracefully(0, 5, TimeUnit.SECONDS).awaitUninterruptibly();
    }
}
