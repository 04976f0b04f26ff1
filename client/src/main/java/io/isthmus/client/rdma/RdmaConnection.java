package io.isthmus.client.rdma;

import io.isthmus.client.security.SaslAuthentication;
import io.isthmus.ffi.verbs.AccessFlags;
import io.isthmus.ffi.verbs.CompletionQueue;
import io.isthmus.ffi.verbs.Context;
import io.isthmus.ffi.verbs.DeviceList;
import io.isthmus.ffi.verbs.Gid;
import io.isthmus.ffi.verbs.MemoryRegion;
import io.isthmus.ffi.verbs.Mtu;
import io.isthmus.ffi.verbs.Opcode;
import io.isthmus.ffi.verbs.ProtectionDomain;
import io.isthmus.ffi.verbs.QueuePair;
import io.isthmus.ffi.verbs.QueuePairAddress;
import io.isthmus.ffi.verbs.QueuePairOptions;
import io.isthmus.ffi.verbs.ReceiveWorkRequests;
import io.isthmus.ffi.verbs.SendFlags;
import io.isthmus.ffi.verbs.SendWorkRequests;
import io.isthmus.ffi.verbs.WorkCompletions;
import io.isthmus.protocol.control.ConsumeAccessRequest;
import io.isthmus.protocol.control.ConsumeAccessResponse;
import io.isthmus.protocol.control.ControlApiKeys;
import io.isthmus.protocol.control.ControlCodec;
import io.isthmus.protocol.control.ControlErrorCodes;
import io.isthmus.protocol.control.ControlFlyweight;
import io.isthmus.protocol.control.ControlFrame;
import io.isthmus.protocol.control.ControlHeaderDescriptor;
import io.isthmus.protocol.control.ControlRequestHeader;
import io.isthmus.protocol.control.ProduceAccessRequest;
import io.isthmus.protocol.control.ProduceAccessResponse;
import io.isthmus.protocol.control.ProduceAckDescriptor;
import io.isthmus.protocol.control.RdmaConnectRequest;
import io.isthmus.protocol.control.RdmaConnectResponse;
import io.isthmus.protocol.control.ReleaseAccessRequest;
import io.isthmus.protocol.control.ReleaseAccessResponse;
import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * One client's RDMA connection to a broker: the TCP control connection (its own socket, so the broker ties the RDMA
 * session to it and tears it down when it closes) and one RC queue pair with its own send and receive completion
 * queues, connected by a manual address exchange (RDMA_CONNECT).
 *
 * <p>The receive queue holds {@code ackCredits} receives into a registered ack region, one {@link ProduceAckDescriptor}
 * each, identified by their index as work-request id: the broker's acknowledgements of produce writes land there. The
 * send queue carries the client's one-sided operations (WRITE WITH IMM, READ, FETCH_AND_ADD), posted one at a time
 * from one reused work request, so a post allocates nothing.
 *
 * <p>The control plane allocates nothing per request either: the connection owns one off-heap request frame (the header,
 * client id included, written once) and one response frame, both from its arena, freed on {@link #close()}. A request
 * is written in place by its flyweight and sent from there; the answer is read into the response frame and returned as
 * a flyweight over it, <b>valid until the next control request on this connection</b>: a caller copies what it keeps.
 *
 * <p>Not thread-safe: one thread (the producer's sender, the consumer's polling thread) owns a connection.
 */
public final class RdmaConnection implements AutoCloseable {
    /** Room for the largest request body: a block (36 bytes at most so far) and a string of up to 32767 bytes. */
    private static final int MAX_REQUEST_BODY = 40 + Short.BYTES + Short.MAX_VALUE;
    /** Room for the largest response frame: RDMA_CONNECT's block and the longest reason. */
    private static final int MAX_RESPONSE_FRAME =
            ControlFrame.RESPONSE_BODY_OFFSET + RdmaConnectResponse.REASON_OFFSET + Short.BYTES + Short.MAX_VALUE;

    private final InetSocketAddress broker;
    private final String clientId;
    private final RdmaClientSettings settings;
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
    private final RdmaConnectRequest connectRequest = new RdmaConnectRequest();
    private final RdmaConnectResponse connectResponse = new RdmaConnectResponse();
    private final ProduceAccessRequest produceRequest = new ProduceAccessRequest();
    private final ProduceAccessResponse produceResponse = new ProduceAccessResponse();
    private final ConsumeAccessRequest consumeRequest = new ConsumeAccessRequest();
    private final ConsumeAccessResponse consumeResponse = new ConsumeAccessResponse();
    private final ReleaseAccessRequest releaseRequest = new ReleaseAccessRequest();
    private final ReleaseAccessResponse releaseResponse = new ReleaseAccessResponse();
    private final DeviceList devices;
    private final Context context;
    private final ProtectionDomain pd;
    private final CompletionQueue sendCq;
    private final CompletionQueue receiveCq;
    private final QueuePair qp;
    private final MemorySegment acks;
    private final MemoryRegion ackRegion;
    private final SendWorkRequests sends;
    private final ReceiveWorkRequests receives;
    private final List<MemoryRegion> regions = new ArrayList<>();
    private final int ackCredits;
    private final int maxSendWr;
    /** The answer to RDMA_CONNECT, over a copy of its own. */
    private RdmaConnectResponse connected;

    private int correlationId;
    private boolean closed;

    private RdmaConnection(
            final InetSocketAddress broker,
            final String clientId,
            final RdmaClientSettings settings,
            final int ackCredits,
            final int maxSendWr)
            throws IOException {
        this.broker = broker;
        this.clientId = clientId;
        this.settings = settings;
        this.ackCredits = ackCredits;
        this.maxSendWr = maxSendWr;
        SocketChannel openedChannel = null;
        Selector openedSelector = null;
        SelectionKey openedKey = null;
        DeviceList openedDevices = null;
        Context openedContext = null;
        try {
            openedChannel = SocketChannel.open();
            // Connected blocking (the adaptor honours the timeout), then non-blocking: reads and writes wait in the
            // selector, which bounds each control request by the request timeout.
            openedChannel.socket().connect(broker, (int) Math.min(Integer.MAX_VALUE, settings.requestTimeoutMs()));
            openedChannel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            openedChannel.configureBlocking(false);
            openedSelector = Selector.open();
            openedKey = openedChannel.register(openedSelector, 0);
            openedDevices = DeviceList.open();
            openedContext = settings.device() == null
                    ? openedDevices.devices().getFirst().open()
                    : openedDevices.byName(settings.device()).open();
        } catch (final IOException | RuntimeException e) {
            if (openedDevices != null) {
                openedDevices.close();
            }
            if (openedSelector != null) {
                openedSelector.close();
            }
            if (openedChannel != null) {
                openedChannel.close();
            }
            throw e;
        }
        channel = openedChannel;
        selector = openedSelector;
        key = openedKey;
        devices = openedDevices;
        context = openedContext;
        pd = context.allocateProtectionDomain();
        sendCq = context.createCompletionQueue(maxSendWr);
        receiveCq = context.createCompletionQueue(ackCredits);
        qp = pd.createQueuePair(new QueuePairOptions()
                .sendCompletionQueue(sendCq)
                .receiveCompletionQueue(receiveCq)
                .maxSendWr(maxSendWr)
                .maxRecvWr(ackCredits)
                .maxSendSge(1)
                .maxRecvSge(1)
                .maxInlineData(0));
        acks = arena.allocate((long) ackCredits * ProduceAckDescriptor.LENGTH, 64);
        ackRegion = pd.registerMemory(acks, AccessFlags.LOCAL_WRITE);
        sends = SendWorkRequests.allocate(arena, 1, 1);
        receives = ReceiveWorkRequests.allocate(arena, ackCredits, 1);
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
     * Connects to the broker at {@code broker}: opens the device, the queue pair and the control connection and runs
     * RDMA_CONNECT.
     *
     * @param ackCredits produce acknowledgements to keep receives posted for (1 for a consumer)
     * @param maxSendWr send queue depth
     * @throws RdmaTransportException if the broker refuses (its reason included) or the device cannot be used
     */
    public static RdmaConnection open(
            final InetSocketAddress broker,
            final String clientId,
            final RdmaClientSettings settings,
            final int ackCredits,
            final int maxSendWr) {
        final RdmaConnection connection;
        try {
            connection = new RdmaConnection(broker, clientId, settings, ackCredits, maxSendWr);
        } catch (final IOException | RuntimeException e) {
            throw new RdmaTransportException(
                    "cannot open an RDMA connection: broker=" + broker + " device=" + settings.device() + " cause=" + e,
                    e);
        }
        try {
            connection.connect();
            return connection;
        } catch (final RuntimeException e) {
            connection.close();
            throw e;
        }
    }

    private void connect() {
        // The broker grants RDMA access to the principal this connection authenticates as, so SASL comes first.
        SaslAuthentication.authenticate(settings.security(), broker.getHostString(), this::kafkaRequest);
        final int port = settings.port();
        qp.moveToInit(port, AccessFlags.LOCAL_WRITE);
        for (int i = 0; i < ackCredits; i++) {
            receives.set(i, i)
                    .sge(i, 0, ackRegion, (long) i * ProduceAckDescriptor.LENGTH, ProduceAckDescriptor.LENGTH);
        }
        qp.postReceive(receives, ackCredits);
        final Gid gid = context.queryGid(port, settings.gidIndex());
        final Mtu mtu = context.queryPort(port).activeMtu();
        final int psn = ThreadLocalRandom.current().nextInt(1 << 24);
        connectRequest
                .wrapForEncode(requestFrame, requestBody)
                .qpNumber(qp.qpNumber())
                .packetSequenceNumber(psn)
                .gid(gid.raw())
                .ackCredits(ackCredits)
                .mtu(mtu.value());
        final RdmaConnectResponse response = call(ControlApiKeys.RDMA_CONNECT, connectRequest, connectResponse);
        if (response.errorCode() != ControlErrorCodes.NONE) {
            throw new RdmaTransportException("broker refused RDMA_CONNECT: broker=" + broker + " error="
                    + ControlErrorCodes.name(response.errorCode()) + " reason=" + response.reason());
        }
        qp.moveToReadyToReceive(
                new QueuePairAddress(
                        response.qpNumber(), response.packetSequenceNumber(), Gid.of(response.gid()), response.lid()),
                Mtu.of(response.mtu()),
                port,
                settings.gidIndex(),
                1);
        qp.moveToReadyToSend(psn, 4);
        final MemorySegment copy = arena.allocate(response.encodedLength());
        MemorySegment.copy(response.segment(), response.segmentOffset(), copy, 0, copy.byteSize());
        connected = new RdmaConnectResponse().wrap(copy, 0);
    }

    // ------------------------------------------------------------------ control plane

    /**
     * PRODUCE_ACCESS to {@code topic}-{@code partition}: {@code flags} of {@link ProduceAccessRequest}, and for a roll
     * the full segment and (shared) the order that overflowed, -1 otherwise.
     *
     * @return the answer, valid until the next control request on this connection
     */
    public ProduceAccessResponse produceAccess(
            final String topic, final int partition, final int flags, final int fullSegmentId, final int fullOrder) {
        produceRequest
                .wrapForEncode(requestFrame, requestBody)
                .partition(partition)
                .flags(flags)
                .fullSegmentId(fullSegmentId)
                .fullOrder(fullOrder)
                .topic(topic);
        return call(ControlApiKeys.PRODUCE_ACCESS, produceRequest, produceResponse);
    }

    /** CONSUME_ACCESS from {@code offset}: the answer, valid until the next control request on this connection. */
    public ConsumeAccessResponse consumeAccess(final String topic, final int partition, final long offset) {
        consumeRequest
                .wrapForEncode(requestFrame, requestBody)
                .partition(partition)
                .offset(offset)
                .topic(topic);
        return call(ControlApiKeys.CONSUME_ACCESS, consumeRequest, consumeResponse);
    }

    /** RELEASE_ACCESS: the answer, valid until the next control request on this connection. */
    public ReleaseAccessResponse release(final String topic, final int partition, final int access) {
        releaseRequest
                .wrapForEncode(requestFrame, requestBody)
                .partition(partition)
                .access(access)
                .topic(topic);
        return call(ControlApiKeys.RELEASE_ACCESS, releaseRequest, releaseResponse);
    }

    /**
     * Sends the request whose {@code body} is written after the header and waits, up to the request timeout, for its
     * answer, which it wraps {@code response} over in the response frame.
     */
    private <T extends ControlFlyweight<T>> T call(
            final short apiKey, final ControlFlyweight<?> body, final T response) {
        final int id = ++correlationId;
        requestHeader.apiKey(apiKey).correlationId(id);
        final int length = (int) requestBody + body.encodedLength();
        ControlFrame.putSize(requestFrame, 0, length);
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.requestTimeoutMs());
        final int size;
        try {
            transfer(requestBuffer.clear().limit(length), true, deadline);
            transfer(responseBuffer.clear().limit(ControlHeaderDescriptor.SIZE_PREFIX_LENGTH), false, deadline);
            size = ControlFrame.size(responseFrame, 0);
            if (size < ControlHeaderDescriptor.RESPONSE_HEADER_LENGTH
                    || size > MAX_RESPONSE_FRAME - ControlHeaderDescriptor.SIZE_PREFIX_LENGTH) {
                throw new RdmaTransportException("bad control response size: broker=" + broker + " apiKey="
                        + ControlApiKeys.name(apiKey) + " size=" + size);
            }
            transfer(responseBuffer.limit(ControlHeaderDescriptor.SIZE_PREFIX_LENGTH + size), false, deadline);
        } catch (final IOException e) {
            throw new RdmaTransportException(
                    "control request failed: broker=" + broker + " apiKey=" + ControlApiKeys.name(apiKey) + " cause="
                            + e,
                    e);
        }
        final int answered = ControlFrame.responseCorrelationId(responseFrame, 0);
        if (answered != id) {
            throw new RdmaTransportException("control response out of order: broker=" + broker + " apiKey="
                    + ControlApiKeys.name(apiKey) + " correlationId=" + id + " answered=" + answered);
        }
        try {
            return response.wrap(
                    responseFrame,
                    ControlFrame.RESPONSE_BODY_OFFSET,
                    size - ControlHeaderDescriptor.RESPONSE_HEADER_LENGTH);
        } catch (final IllegalArgumentException e) {
            throw new RdmaTransportException(
                    "malformed control response: broker=" + broker + " apiKey=" + ControlApiKeys.name(apiKey)
                            + " cause=" + e.getMessage(),
                    e);
        }
    }

    /**
     * One Kafka request on the control connection (the SASL exchange that precedes RDMA_CONNECT), framed as Kafka frames
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
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.requestTimeoutMs());
        try {
            transfer(request.flip(), true, deadline);
            final ByteBuffer sizeBuffer = ByteBuffer.allocate(4);
            transfer(sizeBuffer, false, deadline);
            final int responseSize = sizeBuffer.getInt(0);
            if (responseSize < 4 || responseSize > MAX_RESPONSE_FRAME) {
                throw new RdmaTransportException(
                        "bad " + apiKey + " response size: broker=" + broker + " size=" + responseSize);
            }
            final ByteBuffer response = ByteBuffer.allocate(responseSize);
            transfer(response, false, deadline);
            response.flip();
            final ByteBufferAccessor reader = new ByteBufferAccessor(response);
            final ResponseHeaderData responseHeader =
                    new ResponseHeaderData(reader, apiKey.responseHeaderVersion(version));
            if (responseHeader.correlationId() != id) {
                throw new RdmaTransportException("out of order " + apiKey + " response: broker=" + broker
                        + " correlationId=" + id + " answered=" + responseHeader.correlationId());
            }
            return AbstractResponse.parseResponse(apiKey, reader, version).data();
        } catch (final IOException e) {
            throw new RdmaTransportException(
                    apiKey + " failed on the control connection: broker=" + broker + " cause=" + e, e);
        }
    }

    /** Writes or reads {@code buffer} to its limit on the control connection, waiting in the selector until the deadline. */
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
                            "no progress within the request timeout: requestTimeoutMs=" + settings.requestTimeoutMs());
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

    // ------------------------------------------------------------------ data plane

    /** Registers {@code segment} for the life of this connection (off the hot path: once per buffer). */
    public MemoryRegion register(final MemorySegment segment, final int accessFlags) {
        final MemoryRegion region = pd.registerMemory(segment, accessFlags);
        regions.add(region);
        return region;
    }

    /** Deregisters a region {@link #register registered} here. */
    public void deregister(final MemoryRegion region) {
        if (regions.remove(region)) {
            region.close();
        }
    }

    /** Posts an RDMA READ of {@code length} bytes from {@code remoteAddress} into {@code local} at {@code offset}. */
    public void postRead(
            final long wrId,
            final MemoryRegion local,
            final long offset,
            final int length,
            final long remoteAddress,
            final int rkey) {
        sends.set(0, wrId, Opcode.RDMA_READ, SendFlags.SIGNALED)
                .sge(0, 0, local, offset, length)
                .rdma(0, remoteAddress, rkey);
        qp.postSend(sends, 1);
    }

    /** Posts a WRITE WITH IMM of {@code length} bytes of {@code local} from {@code offset} to {@code remoteAddress}. */
    public void postWriteWithImmediate(
            final long wrId,
            final MemoryRegion local,
            final long offset,
            final int length,
            final long remoteAddress,
            final int rkey,
            final int immediate,
            final boolean signaled) {
        sends.set(0, wrId, Opcode.RDMA_WRITE_WITH_IMM, signaled ? SendFlags.SIGNALED : 0)
                .sge(0, 0, local, offset, length)
                .rdma(0, remoteAddress, rkey)
                .immediate(0, immediate);
        qp.postSend(sends, 1);
    }

    /**
     * Posts an 8-byte RDMA FETCH_AND_ADD of {@code add} to the word at {@code remoteAddress}; the word's old value lands
     * in {@code local} at {@code offset} (8-byte aligned) once the completion {@code wrId} arrives.
     */
    public void postFetchAndAdd(
            final long wrId,
            final MemoryRegion local,
            final long offset,
            final long remoteAddress,
            final int rkey,
            final long add) {
        sends.set(0, wrId, Opcode.ATOMIC_FETCH_AND_ADD, SendFlags.SIGNALED)
                .sge(0, 0, local, offset, Long.BYTES)
                .atomic(0, remoteAddress, rkey, add, 0);
        qp.postSend(sends, 1);
    }

    /** Polls up to {@code completions.capacity()} send-side completions. */
    public int pollSend(final WorkCompletions completions) {
        return sendCq.poll(completions);
    }

    /** Polls up to {@code completions.capacity()} acknowledgement receives. */
    public int pollReceive(final WorkCompletions completions) {
        return receiveCq.poll(completions);
    }

    /** The ack that arrived in receive {@code slot} (the completion's work-request id). */
    public MemorySegment acks() {
        return acks;
    }

    /** Offset of receive {@code slot}'s ack in {@link #acks()}. */
    public static long ackOffset(final int slot) {
        return (long) slot * ProduceAckDescriptor.LENGTH;
    }

    /** Posts receive {@code slot} again, after its ack was read: the producer's credit goes back to the broker. */
    public void repostAck(final int slot) {
        receives.set(0, slot).sge(0, 0, ackRegion, ackOffset(slot), ProduceAckDescriptor.LENGTH);
        qp.postReceive(receives, 1);
    }

    /** Allocates {@code bytes} of memory that lives as long as this connection. */
    public MemorySegment allocate(final long bytes) {
        return arena.allocate(bytes, 4096);
    }

    /** The broker's answer to RDMA_CONNECT (a copy of its own: valid as long as this connection). */
    public RdmaConnectResponse connected() {
        return connected;
    }

    /** Writes the broker lets this connection have unacknowledged. */
    public int produceCredits() {
        return Math.min(ackCredits, connected.produceCredits());
    }

    public int maxSendWr() {
        return maxSendWr;
    }

    public InetSocketAddress broker() {
        return broker;
    }

    public boolean isClosed() {
        return closed;
    }

    /** Closes the control connection (the broker drops the session and every grant) and frees the device. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            channel.close();
        } catch (final IOException ignored) {
            // Closing a socket we own; the broker notices either way.
        }
        try {
            selector.close();
        } catch (final IOException ignored) {
            // Nothing is registered with it any more.
        }
        qp.close();
        for (final MemoryRegion region : regions) {
            region.close();
        }
        regions.clear();
        ackRegion.close();
        receiveCq.close();
        sendCq.close();
        pd.close();
        context.close();
        devices.close();
        arena.close();
    }

    @Override
    public String toString() {
        return "RdmaConnection{broker=" + broker + ", clientId=" + clientId + ", qpNumber=" + qp.qpNumber() + '}';
    }
}
