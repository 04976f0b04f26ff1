package io.isthmus.broker.network;

import io.isthmus.broker.config.ConnectionLimits;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Admits connections within {@code max.connections} and {@code max.connections.per.ip}: the counts are shared by every
 * listener, and a connection over either limit is closed as soon as it is accepted, before it is read. Kafka's acceptor
 * does the same for the per-address limit.
 *
 * <p>One {@link Gate} per channel, at the head of its pipeline; the counts live in the {@link ConnectionAdmission}
 * shared by all of them. Refusals are counted in {@link NetworkMetrics} and logged through a {@link LogThrottle}, so a
 * connection flood does not become a log flood.
 */
final class ConnectionAdmission {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionAdmission.class);
    private static final long LOG_INTERVAL_NANOS = 10_000_000_000L;

    private final ConnectionLimits limits;
    private final NetworkMetrics metrics;
    private final AtomicInteger open = new AtomicInteger();
    private final ConcurrentHashMap<InetAddress, Integer> openByAddress = new ConcurrentHashMap<>();
    private final LogThrottle refusalLog = new LogThrottle(LOG_INTERVAL_NANOS);

    ConnectionAdmission(final ConnectionLimits limits, final NetworkMetrics metrics) {
        this.limits = limits;
        this.metrics = metrics;
    }

    /** The handler that admits (or refuses) one new channel. */
    Gate gate() {
        return new Gate();
    }

    /** Takes a place for a connection from {@code address}, or says why there is none. */
    private String admit(final InetAddress address) {
        if (open.incrementAndGet() > limits.maxConnections()) {
            open.decrementAndGet();
            return "max.connections=" + limits.maxConnections() + " reached";
        }
        final int perAddress = limits.maxConnectionsFrom(address);
        final boolean[] admitted = {false};
        openByAddress.compute(address, (key, count) -> {
            final int current = count == null ? 0 : count;
            if (current >= perAddress) {
                return count;
            }
            admitted[0] = true;
            return current + 1;
        });
        if (!admitted[0]) {
            open.decrementAndGet();
            return "max.connections.per.ip=" + perAddress + " reached for " + address.getHostAddress();
        }
        return null;
    }

    private void release(final InetAddress address) {
        openByAddress.computeIfPresent(address, (key, count) -> count == 1 ? null : count - 1);
        open.decrementAndGet();
    }

    /** Connections open now (admitted and not yet closed). */
    int openConnections() {
        return open.get();
    }

    private void logRefusal(final Object peer, final String reason) {
        if (refusalLog.tryAcquire()) {
            LOG.warn(
                    "refused connection from {}: {} ({} more refused since the last line; logged at most every {} s)",
                    peer,
                    reason,
                    refusalLog.takeSuppressed(),
                    refusalLog.intervalSeconds());
        }
    }

    /** Holds one channel's place from its activation to its close. */
    final class Gate extends ChannelInboundHandlerAdapter {
        private InetAddress admittedAddress;

        private Gate() {}

        @Override
        public void channelActive(final ChannelHandlerContext ctx) {
            final InetAddress address = ((InetSocketAddress) ctx.channel().remoteAddress()).getAddress();
            final String refusal = admit(address);
            if (refusal != null) {
                metrics.connectionRefused();
                logRefusal(ctx.channel().remoteAddress(), refusal);
                ctx.close();
                return;
            }
            admittedAddress = address;
            ctx.fireChannelActive();
        }

        @Override
        public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
            if (admittedAddress == null) {
                ReferenceCountUtil.release(msg);
                return;
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void channelInactive(final ChannelHandlerContext ctx) {
            if (admittedAddress != null) {
                release(admittedAddress);
                admittedAddress = null;
                ctx.fireChannelInactive();
            }
        }
    }
}
