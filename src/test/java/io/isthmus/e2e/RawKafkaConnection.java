package io.isthmus.e2e;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.Optional;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;

/** A bare TCP connection speaking Kafka frames by hand, so tests can send what no real client would. */
final class RawKafkaConnection implements AutoCloseable {
    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;

    RawKafkaConnection(final String host, final int port) throws IOException {
        socket = new Socket();
        socket.connect(new InetSocketAddress(host, port), 5000);
        socket.setSoTimeout(10_000);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    static byte[] frame(final AbstractRequest request, final RequestHeader header) {
        final ByteBuffer body = request.serializeWithHeader(header);
        final ByteBuffer framed = ByteBuffer.allocate(4 + body.remaining());
        framed.putInt(body.remaining()).put(body);
        return framed.array();
    }

    void send(final byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** The next response frame's body, or empty if the broker closed the connection instead. */
    Optional<ByteBuffer> receive() throws IOException {
        try {
            final int size = in.readInt();
            final byte[] body = new byte[size];
            in.readFully(body);
            return Optional.of(ByteBuffer.wrap(body));
        } catch (final java.io.EOFException | SocketException closed) {
            return Optional.empty();
        }
    }

    AbstractResponse receive(final RequestHeader header) throws IOException {
        return AbstractResponse.parseResponse(
                receive().orElseThrow(() -> new IOException("connection closed")), header);
    }

    /** True once the broker has closed the connection; false if it is still open after the timeout. */
    boolean closedByBroker() throws IOException {
        try {
            final InputStream input = socket.getInputStream();
            while (true) {
                if (input.read() < 0) {
                    return true;
                }
            }
        } catch (final SocketTimeoutException stillOpen) {
            return false;
        } catch (final SocketException reset) {
            return true;
        }
    }

    void shutdownOutput() throws IOException {
        socket.shutdownOutput();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
