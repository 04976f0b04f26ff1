package io.isthmus.broker.network;

import io.isthmus.broker.config.Endpoint;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TCP side of the broker: Kafka's wire protocol on every configured listener, served by Netty.
 *
 * <p>One boss thread accepts; {@code num.network.threads} event loops decode frames, run the dispatcher's
 * synchronous work and write responses. Each connection is confined to one event loop.
 */
public final class KafkaServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaServer.class);

    private final EventLoopGroup bossGroup;
    private final EventLoopGroup workerGroup;
    private final List<Channel> serverChannels = new ArrayList<>();
    private final List<Endpoint> boundEndpoints = new ArrayList<>();
    private final NetworkMetrics metrics = new NetworkMetrics();
    private final AtomicLong connectionIds = new AtomicLong();

    private KafkaServer(final int networkThreads) {
        this.bossGroup = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        this.workerGroup = new MultiThreadIoEventLoopGroup(networkThreads, NioIoHandler.newFactory());
    }

    /**
     * Binds every listener and starts serving.
     *
     * @throws InterruptedException if interrupted while binding
     * @throws IllegalStateException naming the listener that could not be bound
     */
    public static KafkaServer start(
            final List<Endpoint> listeners,
            final int networkThreads,
            final int maxRequestBytes,
            final int maxInflightPerConnection,
            final SupportedApis supportedApis,
            final RequestDispatcher dispatcher)
            throws InterruptedException {
        return start(
                listeners,
                networkThreads,
                maxRequestBytes,
                maxInflightPerConnection,
                supportedApis,
                dispatcher,
                ControlRequestHandler.NONE);
    }

    /**
     * Binds every listener and starts serving, with isthmus control requests going to {@code controlRequests}.
     *
     * @throws InterruptedException if interrupted while binding
     * @throws IllegalStateException naming the listener that could not be bound
     */
    public static KafkaServer start(
            final List<Endpoint> listeners,
            final int networkThreads,
            final int maxRequestBytes,
            final int maxInflightPerConnection,
            final SupportedApis supportedApis,
            final RequestDispatcher dispatcher,
            final ControlRequestHandler controlRequests)
            throws InterruptedException {
        final KafkaServer server = new KafkaServer(networkThreads);
        try {
            for (final Endpoint listener : listeners) {
                server.bind(
                        listener,
                        maxRequestBytes,
                        maxInflightPerConnection,
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
            final int maxRequestBytes,
            final int maxInflight,
            final SupportedApis supportedApis,
            final RequestDispatcher dispatcher,
            final ControlRequestHandler controlRequests)
            throws InterruptedException {
        final ServerBootstrap bootstrap = new ServerBootstrap()
                .group(bossGroup, workerGroup)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(final SocketChannel channel) {
                        channel.pipeline()
                                .addLast("frames", new RequestFrameDecoder(maxRequestBytes))
                                .addLast(
                                        "kafka",
                                        new KafkaConnectionHandler(
                                                dispatcher,
                                                controlRequests,
                                                supportedApis,
                                                metrics,
                                                listener.listenerName(),
                                                connectionIds.incrementAndGet(),
                                                maxInflight));
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
        LOG.info("listening on {}", bound);
    }

    /** The listeners as bound: a configured port 0 shows the port the system chose. */
    public List<Endpoint> boundEndpoints() {
        return List.copyOf(boundEndpoints);
    }

    public NetworkMetrics metrics() {
        return metrics;
    }

    @Override
    public void close() {
        for (final Channel channel : serverChannels) {
            channel.close().awaitUninterruptibly();
        }
        bossGroup.shutdownGracefully(0, 5, TimeUnit.SECONDS).awaitUninterruptibly();
        workerGroup.shutdownGracefully(0, 5, TimeUnit.SECONDS).awaitUninterruptibly();
    }
}
