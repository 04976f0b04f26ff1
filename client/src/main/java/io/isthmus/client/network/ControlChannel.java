package io.isthmus.client.network;

import io.isthmus.client.security.SaslAuthentication;
import io.isthmus.client.security.SecuritySettings;
import io.isthmus.protocol.control.ControlApiKeys;
import io.isthmus.protocol.control.ControlCodec;
import io.isthmus.protocol.control.ControlFlyweight;
import io.isthmus.protocol.control.ControlFrame;
import io.isthmus.protocol.control.ControlHeaderDescriptor;
import io.isthmus.protocol.control.ControlRequestHeader;
import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * The TCP connection a one-sided transport (RDMA, shared memory) holds to a broker for its control requests: its own
 * socket, so the broker ties the session it opens to it and ends the session when it closes. It authenticates first
 * (SASL, when the listener asks for it), because the broker grants access to the principal it authenticated.
 *
 * <p>It allocates nothing per request: one off-heap request frame (the header, client id included, written once) and
 * one response frame, both freed on {@link #close()}. A request is written in place by its flyweight and sent from
 * there; the answer is read into the response frame and returned as a flyweight over it, <b>valid until the next
 * answer is read on this channel</b>: a caller copies what it keeps. Requests may be pipelined ({@link #send}, then
 * {@link #poll} their answers in order, without waiting), as a shared-memory producer's doorbells are.
 *
 * <p>Not thread-safe: one thread (the producer's sender, the consumer's polling thread) owns a channel; only {@link
 * #wakeup()} may be called from another.
 */
public final class ControlChannel implements AutoCloseable {
    /** The largest fixed block of a control message so far is CONSUME_ACCESS's answer, 96 bytes. */
    private static final int MAX_BLOCK = 128;
    /** Room for the largest request body: a block and a string of up to 32767 bytes. */
    private static final int MAX_REQUEST_BODY = MAX_BLOCK + Short.BYTES + Short.MAX_VALUE;
    /** Room for the largest response frame: a block and the longest string. */
    private static final int MAX_RESPONSE_FRAME =
            ControlFrame.RESPONSE_BODY_OFFSET + MAX_BLOCK + Short.BYTES + Short.MAX_VALUE;

    /**
     * How a transport words a failure: its own exception type, with the message and the cause. A transport gives two:
     * one for a broker out of reach (which passes when it is back, or another leads), one for a broker that broke the
     * protocol (which does not pass by asking again, and must reach the application).
     */
    @FunctionalInterface
    public interface Failure {
        RuntimeException exception(String message, Throwable cause);
    }

    private final InetSocketAddress broker;
    private final long requestTimeoutMs;
    private final Failure unreachable;
    private final Failure violation;
    private final SocketChannel channel;
    private final Selector selector;
    private final SelectionKey key;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment requestFrame;
    private final ByteBuffer requestBuffer;
    private final ControlRequestHeader requestHeader = new ControlRequestHeader();
    private final long requestBody;
    private final MemorySegment responseFrame;
    private final ByteBuffer responseBuffer;
    private final String clientId;
    /** One byte to probe the connection with between requests ({@link #peerClosed()}). */
    private final ByteBuffer probe = ByteBuffer.allocateDirect(1);

    private int correlationId;
    /** The response buffer holds a whole frame, answered already: the next read starts afresh. */
    private boolean responseComplete = true;

    private boolean closed;

    private ControlChannel(
            final InetSocketAddress broker,
            final String clientId,
            final long requestTimeoutMs,
            final Failure unreachable,
            final Failure violation,
            final SocketChannel channel,
            final Selector selector,
            final SelectionKey key) {
        this.broker = broker;
        this.clientId = clientId;
        this.requestTimeoutMs = requestTimeoutMs;
        this.unreachable = unreachable;
        this.violation = violation;
        this.channel = channel;
        this.selector = selector;
        this.key = key;
        final int headerLength = ControlHeaderDescriptor.CLIENT_ID_OFFSET + ControlCodec.stringLength(clientId) + 1;
        requestFrame = arena.allocate(ControlFrame.REQUEST_HEADER_OFFSET + headerLength + MAX_REQUEST_BODY, 64);
        requestBuffer = requestFrame.asByteBuffer();
        requestHeader
                .wrapForEncode(requestFrame, ControlFrame.REQUEST_HEADER_OFFSET)
                .apiVersion(ControlApiKeys.VERSION)
                .clientId(clientId);
        requestBody = ControlFrame.REQUEST_HEADER_OFFSET + requestHeader.bodyOffset();
        responseFrame = arena.allocate(MAX_RESPONSE_FRAME, 64);
        responseBuffer = responseFrame.asByteBuffer();
    }

    /**
     * Connects to {@code broker} and authenticates as {@code security} says.
     *
     * @param unreachable the exception for a broker that cannot be reached, or whose connection breaks
     * @param violation the exception for an answer that breaks the protocol (the connection is closed with it)
     * @throws RuntimeException made by {@code unreachable} if the broker cannot be reached, by {@code violation} if its
     *     answers to the SASL exchange break the protocol, or Kafka's SASL exceptions if it refuses the principal
     */
    public static ControlChannel open(
            final InetSocketAddress broker,
            final String clientId,
            final long requestTimeoutMs,
            final SecuritySettings security,
            final Failure unreachable,
            final Failure violation) {
        SocketChannel channel = null;
        Selector selector = null;
        final ControlChannel opened;
        try {
            channel = SocketChannel.open();
            // Connected blocking (the adaptor honours the timeout), then non-blocking: reads and writes wait in the
            // selector, which bounds each control request by the request timeout.
            channel.socket().connect(broker, (int) Math.min(Integer.MAX_VALUE, requestTimeoutMs));
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            channel.configureBlocking(false);
            selector = Selector.open();
            opened = new ControlChannel(
                    broker,
                    clientId,
                    requestTimeoutMs,
                    unreachable,
                    violation,
                    channel,
                    selector,
                    channel.register(selector, 0));
        } catch (final IOException | RuntimeException e) {
            closeQuietly(selector, channel);
            throw failed(unreachable, "cannot open a control connection: broker=" + broker + " cause=" + e, e);
        }
        try {
            SaslAuthentication.authenticate(security, broker.getHostString(), opened::kafkaRequest);
            return opened;
        } catch (final RuntimeException e) {
            opened.close();
            throw e;
        }
    }

    /** Where the next request's body is written (after the header): wrap the request flyweight here. */
    public MemorySegment requestFrame() {
        return requestFrame;
    }

    /** The offset in {@link #requestFrame()} at which a request body starts. */
    public long requestBodyOffset() {
        return requestBody;
    }

    /**
     * Sends the request whose {@code body} is written at {@link #requestBodyOffset()} and waits, up to the request
     * timeout, for its answer, which it wraps {@code response} over in the response frame. No other request may be
     * waiting for its answer ({@link #send}).
     */
    public <T extends ControlFlyweight<T>> T call(
            final short apiKey, final ControlFlyweight<?> body, final T response) {
        final int id = send(apiKey, body);
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(requestTimeoutMs);
        try {
            readFrame(true, deadline);
        } catch (final IOException e) {
            throw requestFailed(apiKey, e);
        }
        return answer(apiKey, id, response);
    }

    /**
     * Sends the request whose {@code body} is written at {@link #requestBodyOffset()} without waiting for its answer
     * (the write itself waits up to the request timeout for room in the socket): answers come back in the order sent,
     * through {@link #poll}. Returns the request's correlation id.
     */
    public int send(final short apiKey, final ControlFlyweight<?> body) {
        final int id = ++correlationId;
        requestHeader.apiKey(apiKey).correlationId(id);
        final int length = (int) requestBody + body.encodedLength();
        ControlFrame.putSize(requestFrame, 0, length);
        try {
            transfer(
                    requestBuffer.clear().limit(length),
                    true,
                    System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(requestTimeoutMs));
        } catch (final IOException e) {
            throw requestFailed(apiKey, e);
        }
        return id;
    }

    /**
     * The answer to the oldest request {@link #send sent} and not answered yet, as far as it has arrived, without
     * waiting: {@code response} wrapped over it once it is whole (valid until the next answer is read here), else null.
     *
     * @param apiKey what the request was, for messages
     * @param correlationId the request's id: an answer to another is a broken connection
     */
    public <T extends ControlFlyweight<T>> T poll(final short apiKey, final int correlationId, final T response) {
        try {
            if (!readFrame(false, 0)) {
                return null;
            }
        } catch (final IOException e) {
            throw requestFailed(apiKey, e);
        }
        return answer(apiKey, correlationId, response);
    }

    /**
     * Waits up to {@code timeoutMillis} (at least 1) for bytes of an answer to arrive, or for {@link #wakeup()}; returns
     * at once if some are already there.
     */
    public void awaitAnswer(final long timeoutMillis) {
        try {
            key.interestOps(SelectionKey.OP_READ);
            selector.select(Math.max(1, timeoutMillis));
            selector.selectedKeys().clear();
        } catch (final IOException | CancelledKeyException e) {
            // Cancelled: the socket was closed after an answer broke the protocol.
            throw failed(unreachable, "waiting for the broker failed: broker=" + broker + " cause=" + e, e);
        }
    }

    /** Ends an {@link #awaitAnswer} in progress, or the next one, early. Any thread. */
    public void wakeup() {
        selector.wakeup();
    }

    /**
     * Reads the next response frame into the response frame, resuming a partial one: with {@code wait} until the
     * deadline, else only what the socket holds now. True once the frame is whole.
     */
    private boolean readFrame(final boolean wait, final long deadline) throws IOException {
        if (responseComplete) {
            responseBuffer.clear();
            responseComplete = false;
        }
        if (responseBuffer.position() < ControlHeaderDescriptor.SIZE_PREFIX_LENGTH) {
            responseBuffer.limit(ControlHeaderDescriptor.SIZE_PREFIX_LENGTH);
            if (!fill(wait, deadline)) {
                return false;
            }
        }
        final int size = ControlFrame.size(responseFrame, 0);
        if (size < ControlHeaderDescriptor.RESPONSE_HEADER_LENGTH
                || size > MAX_RESPONSE_FRAME - ControlHeaderDescriptor.SIZE_PREFIX_LENGTH) {
            throw violated("bad control response size: broker=" + broker + " size=" + size, null);
        }
        responseBuffer.limit(ControlHeaderDescriptor.SIZE_PREFIX_LENGTH + size);
        if (!fill(wait, deadline)) {
            return false;
        }
        responseComplete = true;
        return true;
    }

    /** Reads to the response buffer's limit; false if {@code wait} is false and the socket ran dry first. */
    private boolean fill(final boolean wait, final long deadline) throws IOException {
        if (wait) {
            transfer(responseBuffer, false, deadline);
            return true;
        }
        while (responseBuffer.hasRemaining()) {
            final int read = channel.read(responseBuffer);
            if (read < 0) {
                throw new EOFException("the broker closed the control connection");
            }
            if (read == 0) {
                return false;
            }
        }
        return true;
    }

    /** Checks the whole frame just read answers {@code id} and wraps {@code response} over its body. */
    private <T extends ControlFlyweight<T>> T answer(final short apiKey, final int id, final T response) {
        final int size = ControlFrame.size(responseFrame, 0);
        final int answered = ControlFrame.responseCorrelationId(responseFrame, 0);
        if (answered != id) {
            throw violated(
                    "control response out of order: broker=" + broker + " apiKey=" + ControlApiKeys.name(apiKey)
                            + " correlationId=" + id + " answered=" + answered,
                    null);
        }
        try {
            return response.wrap(
                    responseFrame,
                    ControlFrame.RESPONSE_BODY_OFFSET,
                    size - ControlHeaderDescriptor.RESPONSE_HEADER_LENGTH);
        } catch (final IllegalArgumentException e) {
            throw violated(
                    "malformed control response: broker=" + broker + " apiKey=" + ControlApiKeys.name(apiKey)
                            + " cause=" + e.getMessage(),
                    e);
        }
    }

    /**
     * One Kafka request on the control connection (the SASL exchange that precedes the session), framed as Kafka frames
     * it; once per connection, so it uses plain heap buffers.
     */
    private ApiMessage kafkaRequest(final ApiKeys apiKey, final short version, final ApiMessage body) {
        final int id = ++correlationId;
        final RequestHeader header = new RequestHeader(apiKey, version, clientId, id);
        final ObjectSerializationCache cache = new ObjectSerializationCache();
        final short headerVersion = header.headerVersion();
        final int size = header.data().size(cache, headerVersion) + body.size(cache, version);
        final ByteBuffer request = ByteBuffer.allocate(4 + size).putInt(size);
        final ByteBufferAccessor writer = new ByteBufferAccessor(request);
        header.data().write(writer, cache, headerVersion);
        body.write(writer, cache, version);
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(requestTimeoutMs);
        try {
            transfer(request.flip(), true, deadline);
            final ByteBuffer sizeBuffer = ByteBuffer.allocate(4);
            transfer(sizeBuffer, false, deadline);
            final int responseSize = sizeBuffer.getInt(0);
            if (responseSize < 4 || responseSize > MAX_RESPONSE_FRAME) {
                throw violated("bad " + apiKey + " response size: broker=" + broker + " size=" + responseSize, null);
            }
            final ByteBuffer response = ByteBuffer.allocate(responseSize);
            transfer(response, false, deadline);
            response.flip();
            final ByteBufferAccessor reader = new ByteBufferAccessor(response);
            final ResponseHeaderData responseHeader =
                    new ResponseHeaderData(reader, apiKey.responseHeaderVersion(version));
            if (responseHeader.correlationId() != id) {
                throw violated(
                        "out of order " + apiKey + " response: broker=" + broker + " correlationId=" + id + " answered="
                                + responseHeader.correlationId(),
                        null);
            }
            return AbstractResponse.parseResponse(apiKey, reader, version).data();
        } catch (final IOException e) {
            throw failed(
                    unreachable, apiKey + " failed on the control connection: broker=" + broker + " cause=" + e, e);
        }
    }

    /** {@link #failed} for a control request of {@code apiKey} whose I/O failed. */
    private RuntimeException requestFailed(final short apiKey, final IOException e) {
        return failed(
                unreachable,
                "control request failed: broker=" + broker + " apiKey=" + ControlApiKeys.name(apiKey) + " cause=" + e,
                e);
    }

    /**
     * The exception for an answer that breaks the protocol, after closing the socket: what follows in the stream cannot
     * be framed, so the next request on this connection fails as a lost connection would, and its user opens a new
     * one. The frames stay allocated until {@link #close()}: a caller may still be holding a flyweight over them.
     */
    private RuntimeException violated(final String message, final Throwable cause) {
        try {
            channel.close();
            // A channel still registered only shuts its output on close; the descriptor goes once the selector has
            // dropped the cancelled key.
            key.cancel();
            selector.selectNow();
        } catch (final IOException ignored) {
            // Closing a socket we own; the broker notices either way.
        }
        return violation.exception(message, cause);
    }

    /**
     * The exception for an I/O failure: the transport's own, unless the calling thread was interrupted. An interrupt
     * is not the broker's doing (a cancelled task, an application shutting down) and is answered as Kafka's clients
     * answer it, with {@link InterruptException}, the thread's flag left set. Taken for a lost broker, it made a
     * shared-memory reader attach again every 100 ms for as long as the flag stayed set, each attempt ending at once,
     * and its polls returned nothing without a word.
     */
    private static RuntimeException failed(final Failure failure, final String message, final Exception e) {
        if (Thread.currentThread().isInterrupted()) {
            final InterruptedException interrupted = new InterruptedException(message);
            interrupted.initCause(e);
            return new InterruptException(interrupted);
        }
        return failure.exception(message, e);
    }

    /** Writes or reads {@code buffer} to its limit, waiting in the selector until the deadline. */
    private void transfer(final ByteBuffer buffer, final boolean write, final long deadline) throws IOException {
        while (buffer.hasRemaining()) {
            final int transferred = write ? channel.write(buffer) : channel.read(buffer);
            if (transferred < 0) {
                throw new EOFException("the broker closed the control connection");
            }
            if (transferred == 0) {
                final long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    throw new SocketTimeoutException(
                            "no progress within the request timeout: requestTimeoutMs=" + requestTimeoutMs);
                }
                if (Thread.currentThread().isInterrupted()) {
                    throw new InterruptedIOException("interrupted while waiting for the broker"); // select would spin
                }
                key.interestOps(write ? SelectionKey.OP_WRITE : SelectionKey.OP_READ);
                selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(remaining)));
                selector.selectedKeys().clear();
            }
        }
    }

    /**
     * Whether the broker closed the connection (or broke it), found without waiting: between requests nothing is
     * expected from it, so a read that returns end-of-stream, fails, or even brings a byte means the session this
     * connection carries is over. For transports that otherwise never touch the socket while they poll.
     */
    public boolean peerClosed() {
        if (closed) {
            return true;
        }
        try {
            return channel.read(probe.clear()) != 0;
        } catch (final IOException e) {
            return true;
        }
    }

    public InetSocketAddress broker() {
        return broker;
    }

    public boolean isClosed() {
        return closed;
    }

    /** Closes the connection (the broker ends the session and every grant) and frees the frames. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        closeQuietly(selector, channel);
        arena.close();
    }

    private static void closeQuietly(final Selector selector, final SocketChannel channel) {
        try {
            if (channel != null) {
                channel.close();
            }
        } catch (final IOException ignored) {
            // Closing a socket we own; the broker notices either way.
        }
        try {
            if (selector != null) {
                selector.close();
            }
        } catch (final IOException ignored) {
            // Nothing is registered with it any more.
        }
    }

    @Override
    public String toString() {
        return "ControlChannel{broker=" + broker + ", clientId=" + clientId + '}';
    }
}
