package io.isthmus.broker.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.broker.api.ApiVersionsHandler;
import io.isthmus.broker.api.RequestRouter;
import io.isthmus.broker.config.ConnectionLimits;
import io.isthmus.broker.config.Endpoint;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What one client may cost the network layer, over real sockets: a client that never reads its answers stops being
 * read, a frame that stops halfway and a connection that stays quiet are closed, and connections beyond {@code
 * max.connections} or {@code max.connections.per.ip} are refused, while every well-behaved connection is served.
 */
class ConnectionLimitsTest {
    private static final short VERSION = 3;
    private static final long NO_LIMIT = 0;

    private final List<Socket> sockets = new ArrayList<>();
    private KafkaServer server;
    private int port;

    @AfterEach
    void tearDown() throws IOException {
        for (final Socket socket : sockets) {
            socket.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private void start(final ConnectionLimits limits) throws InterruptedException {
        final AtomicReference<RequestRouter> router = new AtomicReference<>();
        router.set(new RequestRouter(
                List.of(new ApiVersionsHandler(() -> router.get().apiVersions()))));
        start(limits, router.get());
    }

    /**
     * A server whose ApiVersions answer is padded to about 7 KB with made-up API keys, so that answers pile up faster
     * than the socket buffers take them.
     */
    private void startWithLargeAnswers(final ConnectionLimits limits) throws InterruptedException {
        final ApiVersionsResponseData large = new ApiVersionsResponseData();
        for (int key = 0; key < 1_000; key++) {
            large.apiKeys()
                    .add(new ApiVersionsResponseData.ApiVersion()
                            .setApiKey((short) key)
                            .setMinVersion((short) 0)
                            .setMaxVersion((short) 3));
        }
        start(limits, new RequestRouter(List.of(new ApiVersionsHandler(() -> large))));
    }

    private void start(final ConnectionLimits limits, final RequestRouter router) throws InterruptedException {
        server = KafkaServer.start(
                List.of(new Endpoint("PLAINTEXT", "127.0.0.1", 0)),
                Map.of(),
                1,
                limits,
                router,
                router,
                ControlRequestHandler.NONE);
        port = server.boundEndpoints().getFirst().port();
    }

    private static ConnectionLimits limits(
            final long idleMs, final long readTimeoutMs, final int maxConnections, final int perIp) {
        return new ConnectionLimits(
                1 << 20,
                64,
                idleMs,
                readTimeoutMs,
                maxConnections,
                perIp,
                Map.of(),
                ConnectionLimits.DEFAULT_SOCKET_BUFFER_BYTES,
                ConnectionLimits.DEFAULT_SOCKET_BUFFER_BYTES);
    }

    private Socket connect(final String localAddress) throws IOException {
        final Socket socket = new Socket();
        sockets.add(socket);
        socket.bind(new InetSocketAddress(InetAddress.getByName(localAddress), 0));
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        socket.setSoTimeout(10_000);
        return socket;
    }

    private static byte[] apiVersionsFrame(final int correlationId) {
        final ByteBuffer body = new ApiVersionsRequest.Builder()
                .build(VERSION)
                .serializeWithHeader(new RequestHeader(ApiKeys.API_VERSIONS, VERSION, "limits-test", correlationId));
        final ByteBuffer frame = ByteBuffer.allocate(4 + body.remaining());
        frame.putInt(body.remaining()).put(body);
        return frame.array();
    }

    /** Reads one answer and returns its correlation id. */
    private static int readAnswer(final DataInputStream in) throws IOException {
        final byte[] response = new byte[in.readInt()];
        in.readFully(response);
        return ByteBuffer.wrap(response).getInt();
    }

    private static boolean answers(final Socket socket, final int correlationId) {
        try {
            socket.getOutputStream().write(apiVersionsFrame(correlationId));
            return readAnswer(new DataInputStream(socket.getInputStream())) == correlationId;
        } catch (final IOException closed) {
            return false;
        }
    }

    /** Whether the broker closed the socket within the socket's read timeout. */
    private static boolean closedByBroker(final Socket socket) throws IOException {
        try {
            return socket.getInputStream().read() == -1;
        } catch (final SocketTimeoutException stillOpen) {
            return false;
        } catch (final IOException reset) {
            return true;
        }
    }

    /** The value once it has not changed for {@code quietMs}. */
    private static long settled(final LongSupplier value, final long quietMs) throws InterruptedException {
        final long deadline = System.nanoTime() + 30_000_000_000L;
        long last = value.getAsLong();
        long since = System.nanoTime();
        while (System.nanoTime() < deadline) {
            Thread.sleep(50);
            final long now = value.getAsLong();
            if (now != last) {
                last = now;
                since = System.nanoTime();
            } else if (System.nanoTime() - since >= quietMs * 1_000_000L) {
                return now;
            }
        }
        throw new AssertionError("the value never settled: last=" + last);
    }

    @Test
    void aClientThatNeverReadsItsAnswersStopsBeingReadAndLosesNothingOnceItReads() throws Exception {
        startWithLargeAnswers(limits(NO_LIMIT, NO_LIMIT, Integer.MAX_VALUE, Integer.MAX_VALUE));
        // About 70 MB of answers: far beyond the socket buffers (a few MB) and the broker's 256 KiB high-water mark.
        final int requests = 10_000;
        final Socket slow = new Socket();
        sockets.add(slow);
        slow.setReceiveBufferSize(4096);
        slow.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        slow.setSoTimeout(30_000);
        final Thread writer = Thread.ofPlatform().start(() -> {
            try {
                // One write of every request: each socket read the broker makes then brings it hundreds of frames.
                final java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
                for (int i = 0; i < requests; i++) {
                    all.writeBytes(apiVersionsFrame(i));
                }
                final OutputStream out = slow.getOutputStream();
                out.write(all.toByteArray());
                out.flush();
            } catch (final IOException e) {
                throw new IllegalStateException(e);
            }
        });

        final long handledWhileNotReading = settled(() -> server.metrics().requests(ApiKeys.API_VERSIONS), 1_000);
        System.out.println("answered while the client read nothing: " + handledWhileNotReading + " of " + requests);
        // The socket buffers take a few MB of answers (the kernel grows the send buffer up to 4 MiB); the broker
        // itself holds at most its 256 KiB high-water mark plus one answer, however many frames one read brought.
        assertThat(handledWhileNotReading)
                .as("requests handled while the client read nothing")
                .isLessThan(1_500);
        final Socket good = connect("127.0.0.1");
        assertThat(answers(good, 7))
                .as("other connections are served meanwhile")
                .isTrue();

        final DataInputStream in = new DataInputStream(slow.getInputStream());
        for (int i = 0; i < requests; i++) {
            assertThat(readAnswer(in)).isEqualTo(i);
        }
        writer.join(30_000);
        assertThat(writer.isAlive()).isFalse();
    }

    @Test
    void aFrameThatStopsHalfwayIsClosedAfterTheReadTimeoutAndAWholeOneIsServed() throws Exception {
        start(limits(NO_LIMIT, 300, Integer.MAX_VALUE, Integer.MAX_VALUE));
        final Socket stalled = connect("127.0.0.1");
        final byte[] frame = apiVersionsFrame(1);
        stalled.getOutputStream().write(frame, 0, frame.length - 3);
        final Socket healthy = connect("127.0.0.1");

        assertThat(closedByBroker(stalled)).isTrue();
        assertThat(server.metrics().connectionsClosedForBadInput()).isEqualTo(1);
        assertThat(answers(healthy, 2)).isTrue();
    }

    @Test
    void aQuietConnectionIsClosedAfterTheIdleTimeoutAndABusyOneIsNot() throws Exception {
        start(limits(400, NO_LIMIT, Integer.MAX_VALUE, Integer.MAX_VALUE));
        final Socket quiet = connect("127.0.0.1");
        final Socket busy = connect("127.0.0.1");
        for (int i = 0; i < 12; i++) {
            assertThat(answers(busy, i))
                    .as("request %d on the busy connection", i)
                    .isTrue();
            Thread.sleep(100);
        }

        assertThat(closedByBroker(quiet)).isTrue();
        assertThat(server.metrics().connectionsClosedIdle()).isEqualTo(1);
        assertThat(answers(busy, 99)).isTrue();
    }

    @Test
    void connectionsBeyondMaxConnectionsAreRefusedUntilOneCloses() throws Exception {
        start(limits(NO_LIMIT, NO_LIMIT, 3, Integer.MAX_VALUE));
        final List<Socket> admitted = List.of(connect("127.0.0.1"), connect("127.0.0.1"), connect("127.0.0.1"));
        for (final Socket socket : admitted) {
            assertThat(answers(socket, 1)).isTrue();
        }

        final Socket fourth = connect("127.0.0.1");
        assertThat(closedByBroker(fourth)).isTrue();
        assertThat(server.metrics().connectionsRefused()).isEqualTo(1);
        assertThat(answers(admitted.getFirst(), 2))
                .as("the admitted ones are unaffected")
                .isTrue();

        admitted.getFirst().close();
        final long deadline = System.nanoTime() + 10_000_000_000L;
        boolean served = false;
        while (!served && System.nanoTime() < deadline) {
            served = answers(connect("127.0.0.1"), 3); // the close reaches the broker asynchronously
        }
        assertThat(served).as("a place freed by a close is taken again").isTrue();
    }

    @Test
    void connectionsPerAddressAreCappedWithPerAddressOverrides() throws Exception {
        start(new ConnectionLimits(
                1 << 20,
                64,
                NO_LIMIT,
                NO_LIMIT,
                100,
                2,
                Map.of(InetAddress.getByName("127.0.0.2"), 3),
                ConnectionLimits.SYSTEM_SOCKET_BUFFER,
                ConnectionLimits.SYSTEM_SOCKET_BUFFER));
        assertThat(answers(connect("127.0.0.1"), 1)).isTrue();
        assertThat(answers(connect("127.0.0.1"), 2)).isTrue();
        assertThat(closedByBroker(connect("127.0.0.1")))
                .as("a third from 127.0.0.1")
                .isTrue();

        for (int i = 0; i < 3; i++) {
            assertThat(answers(connect("127.0.0.2"), 10 + i))
                    .as("connection %d from 127.0.0.2", i)
                    .isTrue();
        }
        assertThat(closedByBroker(connect("127.0.0.2")))
                .as("a fourth from 127.0.0.2")
                .isTrue();
        assertThat(server.metrics().connectionsRefused()).isEqualTo(2);
    }
}
