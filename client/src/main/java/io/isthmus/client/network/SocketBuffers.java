package io.isthmus.client.network;

import io.isthmus.client.config.ConfigReader;
import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import java.util.Set;

/**
 * The kernel buffer sizes a client asks for on each broker connection: Kafka's {@code receive.buffer.bytes} and
 * {@code send.buffer.bytes}, with Kafka's meaning of -1 (leave the buffer to the system, which grows it by itself).
 *
 * <p>Why the consumer's receive buffer matters: a fetch is pipelined (the next request goes out before the application
 * reads the previous response), but the response can only travel while the application is busy as far as the receive
 * buffer holds it. With a buffer smaller than a fetch response the broker stalls mid-response until the consumer reads
 * again, and the consumer then waits for the rest. A set size is capped by the kernel at {@code net.core.rmem_max}
 * ({@code wmem_max} for sending).
 *
 * @param receiveBytes {@code SO_RCVBUF} to ask for, or -1 for the system's
 * @param sendBytes {@code SO_SNDBUF} to ask for, or -1 for the system's
 */
public record SocketBuffers(int receiveBytes, int sendBytes) {
    /** What every connection asked for before the sizes were settings, and still does unless told otherwise. */
    public static final SocketBuffers DEFAULT = new SocketBuffers(1 << 20, 1 << 20);

    public static final String RECEIVE_BUFFER_BYTES = "receive.buffer.bytes";
    public static final String SEND_BUFFER_BYTES = "send.buffer.bytes";

    /** The setting names, for a client's set of known keys. */
    public static final Set<String> NAMES = Set.of(RECEIVE_BUFFER_BYTES, SEND_BUFFER_BYTES);

    /** Reads both settings, each with the client's default when absent. */
    public static SocketBuffers from(final ConfigReader r, final SocketBuffers defaults) {
        return new SocketBuffers(
                r.integer(RECEIVE_BUFFER_BYTES, defaults.receiveBytes, -1),
                r.integer(SEND_BUFFER_BYTES, defaults.sendBytes, -1));
    }

    public SocketBuffers {
        check(RECEIVE_BUFFER_BYTES, receiveBytes);
        check(SEND_BUFFER_BYTES, sendBytes);
    }

    private static void check(final String name, final int bytes) {
        if (bytes != -1 && bytes <= 0) {
            throw new IllegalArgumentException(name + " must be -1 (the system's) or positive: value=" + bytes);
        }
    }

    /** Sets the sizes that are not -1 on {@code channel}, before it connects (so that window scaling follows). */
    void applyTo(final SocketChannel channel) throws IOException {
        if (receiveBytes != -1) {
            channel.setOption(StandardSocketOptions.SO_RCVBUF, receiveBytes);
        }
        if (sendBytes != -1) {
            channel.setOption(StandardSocketOptions.SO_SNDBUF, sendBytes);
        }
    }
}
