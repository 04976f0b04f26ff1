package io.isthmus.client.network;

import io.isthmus.client.security.SaslAuthentication;
import io.isthmus.client.security.SecuritySettings;
import io.isthmus.protocol.control.ControlApiKeys;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * One client connection to a Kafka-protocol broker over TCP (a non-blocking NIO {@link SocketChannel} with its own
 * {@link Selector}).
 *
 * <p>Why plain NIO rather than Netty: a connection is owned by one thread (a producer's sender, a consumer's poll
 * thread), so no event loop or hand-off is needed, and reading straight into an off-heap {@link ReceiveBuffer} that
 * the application later sees record by record is the whole point: with NIO the bytes land where they are consumed,
 * with nothing between the socket and the application but the kernel copy.
 *
 * <p>Requests are framed with kafka-clients' generated classes: a 4-byte size, the request header, the body.
 * {@link #send} writes a request and returns at once, so several can be in flight (pipelining); {@link #receive}
 * returns responses strictly in request order, each checked against the correlation id it was sent with. {@link
 * #request} may be called while such requests are in flight (a consumer looks offsets up at the broker it has a fetch
 * outstanding at): the responses it reads before its own are kept for {@link #receive}. API versions are negotiated
 * once at {@link #open}: each request goes at the highest version both sides know.
 *
 * <p>Not thread-safe: one owner thread, or callers that serialise on the connection.
 */
public final class KafkaConnection implements AutoCloseable {
    /** Frames larger than this are refused (the broker's default {@code socket.request.max.bytes}-like guard). */
    public static final int MAX_RESPONSE_BYTES = Integer.MAX_VALUE - 64;

    private static final String SOFTWARE_NAME = "isthmus-java";
    private static final String SOFTWARE_VERSION = "0.1.0";

    private final InetSocketAddress address;
    private final String clientId;
    private final ReceiveBufferPool pool;
    private final SocketChannel channel;
    private final Selector selector;
    private final SelectionKey key;
    private final ArrayDeque<InFlight> inFlight = new ArrayDeque<>();
    /** Responses to {@link #send}s that a {@link #request} read while waiting for its own; {@link #receive} hands
     * them out first, in order. */
    private final ArrayDeque<Response> readAhead = new ArrayDeque<>();

    private final ByteBuffer sizeBuffer = ByteBuffer.allocateDirect(4);
    private final short[] maxVersions = new short[ApiKeys.values().length + 64];
    private final short[] minVersions = new short[ApiKeys.values().length + 64];
    private ByteBuffer sendBuffer = ByteBuffer.allocateDirect(64 * 1024);
    private int nextCorrelationId;
    private ReceiveBuffer receiving;
    private int receivedBytes;
    private boolean closed;

    private boolean advertisesRdma;
    private boolean advertisesRdmaProduce;
    private boolean advertisesShm;
    private boolean advertisesShmProduce;

    private record InFlight(ApiKeys apiKey, short version, int correlationId, boolean expectResponse) {}

    private KafkaConnection(
            final InetSocketAddress address,
            final String clientId,
            final ReceiveBufferPool pool,
            final SocketChannel channel,
            final Selector selector)
            throws IOException {
        this.address = address;
        this.clientId = clientId;
        this.pool = pool;
        this.channel = channel;
        this.selector = selector;
        this.key = channel.register(selector, SelectionKey.OP_READ);
        java.util.Arrays.fill(maxVersions, (short) -1);
    }

    /**
     * Connects, negotiates API versions and, for SASL, authenticates.
     *
     * @throws NetworkException if the broker cannot be reached or the handshake fails
     * @throws AuthenticationException if the broker refuses the client's credentials or mechanism (not retriable)
     */
    public static KafkaConnection open(
            final InetSocketAddress address,
            final String clientId,
            final ReceiveBufferPool pool,
            final Duration timeout,
            final SecuritySettings security,
            final SocketBuffers buffers) {
        SocketChannel channel = null;
        Selector selector = null;
        try {
            channel = SocketChannel.open();
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            buffers.applyTo(channel);
            // One deadline for the whole setup: connect, ApiVersions and each SASL round trip share the timeout.
            final long deadline = System.nanoTime() + timeout.toNanos();
            channel.socket().connect(address, (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis())));
            channel.configureBlocking(false);
            selector = Selector.open();
            final KafkaConnection connection = new KafkaConnection(address, clientId, pool, channel, selector);
            connection.negotiate(remaining(deadline));
            SaslAuthentication.authenticate(
                    security,
                    address.getHostString(),
                    (apiKey, version, body) -> connection.request(apiKey, body, version, remaining(deadline)));
            return connection;
        } catch (final AuthenticationException e) {
            closeQuietly(selector);
            closeQuietly(channel);
            throw e;
        } catch (final IOException | RuntimeException e) {
            closeQuietly(selector);
            closeQuietly(channel);
            throw new NetworkException(
                    "cannot connect to broker: address=" + address + ", clientId=" + clientId + ", cause=" + e, e);
        }
    }

    /** What is left until {@code deadline} ({@link System#nanoTime()}), at least a nanosecond. */
    private static Duration remaining(final long deadline) {
        return Duration.ofNanos(Math.max(1, deadline - System.nanoTime()));
    }

    private void negotiate(final Duration timeout) {
        final short version = ApiKeys.API_VERSIONS.latestVersion();
        maxVersions[ApiKeys.API_VERSIONS.id] = version;
        final ApiVersionsResponseData response = (ApiVersionsResponseData) request(
                ApiKeys.API_VERSIONS,
                new ApiVersionsRequestData()
                        .setClientSoftwareName(SOFTWARE_NAME)
                        .setClientSoftwareVersion(SOFTWARE_VERSION),
                timeout);
        if (response.errorCode() != Errors.NONE.code()) {
            throw Errors.forCode(response.errorCode())
                    .exception("ApiVersions failed: address=" + address + ", error="
                            + Errors.forCode(response.errorCode()));
        }
        java.util.Arrays.fill(maxVersions, (short) -1);
        for (final ApiVersionsResponseData.ApiVersion api : response.apiKeys()) {
            if (api.apiKey() == ControlApiKeys.RDMA_CONNECT) {
                advertisesRdma = true;
            }
            if (api.apiKey() == ControlApiKeys.PRODUCE_ACCESS) {
                advertisesRdmaProduce = true;
            }
            if (api.apiKey() == ControlApiKeys.SHM_ATTACH) {
                advertisesShm = true;
            }
            if (api.apiKey() == ControlApiKeys.SHM_PRODUCE) {
                advertisesShmProduce = true;
            }
            if (!ApiKeys.hasId(api.apiKey())) {
                continue;
            }
            final ApiKeys apiKey = ApiKeys.forId(api.apiKey());
            final short high = (short) Math.min(api.maxVersion(), apiKey.latestVersion());
            final short low = (short) Math.max(api.minVersion(), apiKey.oldestVersion());
            if (high >= low && api.apiKey() < maxVersions.length) {
                maxVersions[api.apiKey()] = high;
                minVersions[api.apiKey()] = low;
            }
        }
    }

    /** Whether the broker listed the isthmus RDMA control requests in ApiVersions: its RDMA datapath is running. */
    public boolean advertisesRdma() {
        return advertisesRdma;
    }

    /** Whether the broker lists PRODUCE_ACCESS in ApiVersions: it takes batches from producers over RDMA. */
    public boolean advertisesRdmaProduce() {
        return advertisesRdmaProduce;
    }

    /** Whether the broker listed the isthmus shared-memory control requests in ApiVersions (shm.enabled). */
    public boolean advertisesShm() {
        return advertisesShm;
    }

    /** Whether the broker lists SHM_PRODUCE in ApiVersions: it takes batches from producers over shared memory. */
    public boolean advertisesShmProduce() {
        return advertisesShmProduce;
    }

    /** The version requests of {@code apiKey} are sent at, or -1 if the broker does not serve it. */
    public short version(final ApiKeys apiKey) {
        return maxVersions[apiKey.id];
    }

    /** The version requests of {@code apiKey} are sent at when capped at {@code maxVersion}, or -1 if none. */
    public short version(final ApiKeys apiKey, final short maxVersion) {
        final short negotiated = maxVersions[apiKey.id];
        return negotiated <= maxVersion ? negotiated : oldestAtMost(apiKey, maxVersion);
    }

    private short oldestAtMost(final ApiKeys apiKey, final short maxVersion) {
        return minVersions[apiKey.id] <= maxVersion ? maxVersion : -1;
    }

    /** Whether the broker serves {@code apiKey} at a version this client knows. */
    public boolean supports(final ApiKeys apiKey) {
        return maxVersions[apiKey.id] >= 0;
    }

    public InetSocketAddress address() {
        return address;
    }

    /** Requests sent whose responses have not been received yet. */
    public int inFlight() {
        return inFlight.size() + readAhead.size();
    }

    /** Sends a request at the negotiated version; returns its correlation id. */
    public int send(final ApiKeys apiKey, final ApiMessage body) {
        return send(apiKey, body, true);
    }

    /**
     * Sends a request at the negotiated version. {@code expectResponse=false} is for requests the broker does not
     * answer (Produce with acks=0).
     */
    public int send(final ApiKeys apiKey, final ApiMessage body, final boolean expectResponse) {
        return send(apiKey, body, expectResponse, apiKey.latestVersion());
    }

    /**
     * Sends a request at the negotiated version, but at most {@code maxVersion}: for requests whose newer versions mean
     * something else (a transactional producer that speaks Kafka's first transaction protocol stays below the versions
     * that imply the second).
     */
    public int send(final ApiKeys apiKey, final ApiMessage body, final boolean expectResponse, final short maxVersion) {
        ensureOpen();
        final short version = version(apiKey, maxVersion);
        if (version < 0) {
            throw new UnsupportedVersionException("broker does not serve api=" + apiKey
                    + " at any version this client knows up to " + maxVersion + ": address=" + address);
        }
        final int correlationId = nextCorrelationId++;
        final RequestHeaderData header = new RequestHeaderData()
                .setRequestApiKey(apiKey.id)
                .setRequestApiVersion(version)
                .setClientId(clientId)
                .setCorrelationId(correlationId);
        final short headerVersion = apiKey.requestHeaderVersion(version);
        final ObjectSerializationCache cache = new ObjectSerializationCache();
        final int size = header.size(cache, headerVersion) + body.size(cache, version);
        if (sendBuffer.capacity() < size + 4) {
            sendBuffer = ByteBuffer.allocateDirect(Math.max(size + 4, sendBuffer.capacity() * 2));
        }
        final ByteBuffer buffer = sendBuffer.clear();
        buffer.putInt(size);
        final ByteBufferAccessor accessor = new ByteBufferAccessor(buffer);
        header.write(accessor, cache, headerVersion);
        body.write(accessor, cache, version);
        buffer.flip();
        try {
            writeFully(buffer);
        } catch (final IOException e) {
            close();
            throw new NetworkException(
                    "send failed: address=" + address + ", api=" + apiKey + ", correlationId=" + correlationId, e);
        }
        if (expectResponse) {
            inFlight.addLast(new InFlight(apiKey, version, correlationId, true));
        }
        return correlationId;
    }

    private void writeFully(final ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            if (channel.write(buffer) == 0) {
                key.interestOps(SelectionKey.OP_WRITE);
                selector.select(100);
                selector.selectedKeys().clear();
                key.interestOps(SelectionKey.OP_READ);
            }
        }
    }

    /**
     * The next response, in request order, waiting up to {@code timeoutNanos} (0: only what has arrived already).
     *
     * @return the response (its buffer is the caller's until released), or null if none is complete in time
     * @throws NetworkException if the connection fails or the response does not match the request
     */
    public Response receive(final long timeoutNanos) {
        ensureOpen();
        final Response early = readAhead.pollFirst();
        if (early != null) {
            return early;
        }
        return receiveFromSocket(timeoutNanos);
    }

    private Response receiveFromSocket(final long timeoutNanos) {
        if (inFlight.isEmpty()) {
            throw new IllegalStateException("no request in flight: address=" + address);
        }
        final long deadline = System.nanoTime() + timeoutNanos;
        try {
            while (true) {
                if (readSome()) {
                    return completeResponse();
                }
                final long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    return null;
                }
                final int ready = selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(remaining + 999_999)));
                selector.selectedKeys().clear();
                if (ready == 0 && Thread.currentThread().isInterrupted()) {
                    return null;
                }
                if (ready == 0 && wokenUp()) {
                    return null;
                }
            }
        } catch (final IOException e) {
            close();
            throw new NetworkException("receive failed: address=" + address + ", inFlight=" + inFlight.size(), e);
        }
    }

    /** Reads what the socket has; true when a whole frame is in {@link #receiving}. */
    private boolean readSome() throws IOException {
        if (receiving == null) {
            if (sizeBuffer.hasRemaining()) {
                if (channel.read(sizeBuffer) < 0) {
                    throw new IOException("connection closed by broker");
                }
                if (sizeBuffer.hasRemaining()) {
                    return false;
                }
            }
            final int size = sizeBuffer.getInt(0);
            if (size < 4 || size > MAX_RESPONSE_BYTES) {
                throw new IOException("invalid response frame size=" + size);
            }
            receiving = pool.acquire();
            receiving.prepare(size);
        }
        final ByteBuffer frame = receiving.frame();
        frame.position(receivedBytes);
        while (frame.hasRemaining()) {
            final int n = channel.read(frame);
            if (n < 0) {
                throw new IOException("connection closed by broker mid-frame");
            }
            if (n == 0) {
                receivedBytes = frame.position();
                return false;
            }
        }
        receivedBytes = 0;
        return true;
    }

    private Response completeResponse() {
        final ReceiveBuffer buffer = receiving;
        receiving = null;
        sizeBuffer.clear();
        final InFlight request = inFlight.pollFirst();
        final ByteBuffer frame = buffer.frame();
        final ResponseHeaderData header = new ResponseHeaderData(
                new ByteBufferAccessor(frame), request.apiKey().responseHeaderVersion(request.version()));
        if (header.correlationId() != request.correlationId()) {
            buffer.release();
            close();
            throw new NetworkException("correlation id mismatch: address=" + address + ", api=" + request.apiKey()
                    + ", expected=" + request.correlationId() + ", actual=" + header.correlationId());
        }
        return new Response(request.apiKey(), request.version(), request.correlationId(), buffer, frame.position());
    }

    /**
     * Sends a request and waits for its response, parsed; releases the buffer. Responses to requests sent earlier with
     * {@link #send} arrive first: they are kept, unread, for their owner's next {@link #receive}.
     */
    public ApiMessage request(final ApiKeys apiKey, final ApiMessage body, final Duration timeout) {
        return request(apiKey, body, apiKey.latestVersion(), timeout);
    }

    /** As {@link #request(ApiKeys, ApiMessage, Duration)}, at most at {@code maxVersion}. */
    public ApiMessage request(
            final ApiKeys apiKey, final ApiMessage body, final short maxVersion, final Duration timeout) {
        final int correlationId = send(apiKey, body, true, maxVersion);
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            final Response response = receiveFromSocket(Math.max(0, deadline - System.nanoTime()));
            if (response == null) {
                close();
                throw new TimeoutException("no response in " + timeout.toMillis() + " ms: address=" + address + ", api="
                        + apiKey + ", correlationId=" + correlationId);
            }
            if (response.correlationId() != correlationId) {
                readAhead.addLast(response);
                continue;
            }
            try {
                return response.parse();
            } finally {
                response.release();
            }
        }
    }

    private volatile boolean wakeupRequested;

    private boolean wokenUp() {
        if (wakeupRequested) {
            wakeupRequested = false;
            return true;
        }
        return false;
    }

    /** Makes a {@link #receive} blocked in another thread return early (it returns null if nothing arrived). */
    public void wakeup() {
        wakeupRequested = true;
        selector.wakeup();
    }

    private void ensureOpen() {
        if (closed) {
            throw new NetworkException("connection is closed: address=" + address);
        }
    }

    public boolean isClosed() {
        return closed;
    }

    /** The kernel's value of a socket option of this connection (tests: what {@link SocketBuffers} set). */
    <T> T socketOption(final java.net.SocketOption<T> option) throws IOException {
        return channel.getOption(option);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (receiving != null) {
            receiving.release();
            receiving = null;
        }
        inFlight.clear();
        Response early;
        while ((early = readAhead.pollFirst()) != null) {
            early.release();
        }
        closeQuietly(selector);
        closeQuietly(channel);
    }

    private static void closeQuietly(final AutoCloseable closeable) {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        } catch (final Exception ignored) {
            // Closing after a failure: the first failure is what the caller hears about.
        }
    }

    @Override
    public String toString() {
        return "KafkaConnection{address=" + address + ", clientId=" + clientId + ", inFlight=" + inFlight()
                + ", closed=" + closed + '}';
    }
}
