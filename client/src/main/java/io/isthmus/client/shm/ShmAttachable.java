package io.isthmus.client.shm;

import io.isthmus.client.config.Transport;
import java.net.InetSocketAddress;
import org.slf4j.LoggerFactory;

/**
 * A shared-memory transport (the producer's or the consumer's), which attaches to its broker before it is used: that
 * is where a client learns whether shared memory works here (the same host, allowed to read the broker's directory).
 */
public interface ShmAttachable extends AutoCloseable {
    /**
     * Attaches to {@code broker}.
     *
     * @throws ShmTransportException with the reason if it cannot
     */
    void attach(InetSocketAddress broker);

    @Override
    void close();

    /**
     * {@code transport} attached to {@code broker}, or null where it cannot attach and shared memory is not {@code
     * required} ({@code transport=auto} passes it by: the transport is closed and the reason logged).
     *
     * @throws UnsupportedOperationException where it cannot attach and shared memory is {@code required}, with the
     *     reason
     */
    static <T extends ShmAttachable> T attachOrPassBy(
            final T transport, final InetSocketAddress broker, final boolean required) {
        try {
            transport.attach(broker);
            return transport;
        } catch (final ShmTransportException e) {
            transport.close();
            if (!required) {
                LoggerFactory.getLogger(ShmAttachable.class)
                        .info("transport=auto passes shared memory by: {}", e.getMessage());
                return null;
            }
            throw new UnsupportedOperationException(
                    Transport.SHM_UNAVAILABLE + e.getMessage() + "; use --transport tcp, rdma or auto", e);
        }
    }
}
