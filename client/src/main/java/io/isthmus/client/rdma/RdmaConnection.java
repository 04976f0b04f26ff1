package io.isthmus.client.rdma;

import io.isthmus.client.network.ControlChannel;
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
import io.isthmus.protocol.control.ControlErrorCodes;
import io.isthmus.protocol.control.ProduceAccessRequest;
import io.isthmus.protocol.control.ProduceAccessResponse;
import io.isthmus.protocol.control.ProduceAckDescriptor;
import io.isthmus.protocol.control.RdmaConnectRequest;
import io.isthmus.protocol.control.RdmaConnectResponse;
import io.isthmus.protocol.control.ReleaseAccessRequest;
import io.isthmus.protocol.control.ReleaseAccessResponse;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One client's RDMA connection to a broker: the TCP {@link ControlChannel} (its own socket, so the broker ties the RDMA
 * session to it and tears it down when it closes) and one RC queue pair with its own send and receive completion
 * queues, connected by a manual address exchange (RDMA_CONNECT).
 *
 * <p>The receive queue holds {@code ackCredits} receives into a registered ack region, one {@link ProduceAckDescriptor}
 * each, identified by their index as work-request id: the broker's acknowledgements of produce writes land there. The
 * send queue carries the client's one-sided operations (WRITE WITH IMM, READ, FETCH_AND_ADD), posted one at a time
 * from one reused work request, so a post allocates nothing.
 *
 * <p>The control plane allocates nothing per request either (see {@link ControlChannel}): an answer is a flyweight over
 * the channel's response frame, <b>valid until the next control request on this connection</b>: a caller copies what it
 * keeps.
 *
 * <p>Not thread-safe: one thread (the producer's sender, the consumer's polling thread) owns a connection.
 */
public final class RdmaConnection implements AutoCloseable {
    private final InetSocketAddress broker;
    private final String clientId;
    private final RdmaClientSettings settings;
    private final ControlChannel control;
    private final Arena arena = Arena.ofShared();
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

    private boolean closed;

    private RdmaConnection(
            final InetSocketAddress broker,
            final String clientId,
            final RdmaClientSettings settings,
            final int ackCredits,
            final int maxSendWr,
            final ControlChannel control) {
        this.broker = broker;
        this.clientId = clientId;
        this.settings = settings;
        this.ackCredits = ackCredits;
        this.maxSendWr = maxSendWr;
        this.control = control;
        final DeviceList openedDevices = DeviceList.open();
        try {
            context = settings.device() == null
                    ? openedDevices.devices().getFirst().open()
                    : openedDevices.byName(settings.device()).open();
        } catch (final RuntimeException e) {
            openedDevices.close();
            throw e;
        }
        devices = openedDevices;
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
        final ControlChannel control = ControlChannel.open(
                broker,
                clientId,
                settings.requestTimeoutMs(),
                settings.security(),
                RdmaBrokerUnreachableException::new,
                RdmaTransportException::new);
        final RdmaConnection connection;
        try {
            connection = new RdmaConnection(broker, clientId, settings, ackCredits, maxSendWr, control);
        } catch (final RuntimeException e) {
            control.close();
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
                .wrapForEncode(control.requestFrame(), control.requestBodyOffset())
                .qpNumber(qp.qpNumber())
                .packetSequenceNumber(psn)
                .gid(gid.raw())
                .ackCredits(ackCredits)
                .mtu(mtu.value());
        final RdmaConnectResponse response = control.call(ControlApiKeys.RDMA_CONNECT, connectRequest, connectResponse);
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
     * the full segment and (shared) the order that overflowed, -1 otherwise; the producer's {@code acks} and how long
     * an {@code acks=-1} write may wait for the in-sync replicas.
     *
     * @return the answer, valid until the next control request on this connection
     */
    public ProduceAccessResponse produceAccess(
            final String topic,
            final int partition,
            final int flags,
            final int fullSegmentId,
            final int fullOrder,
            final short acks,
            final int timeoutMs,
            final int leaderId,
            final int leaderEpoch) {
        produceRequest
                .wrapForEncode(control.requestFrame(), control.requestBodyOffset())
                .partition(partition)
                .flags(flags)
                .fullSegmentId(fullSegmentId)
                .fullOrder(fullOrder)
                .acks(acks)
                .timeoutMs(timeoutMs)
                .leaderId(leaderId)
                .leaderEpoch(leaderEpoch)
                .topic(topic);
        return control.call(ControlApiKeys.PRODUCE_ACCESS, produceRequest, produceResponse);
    }

    /** CONSUME_ACCESS from {@code offset}: the answer, valid until the next control request on this connection. */
    public ConsumeAccessResponse consumeAccess(final String topic, final int partition, final long offset) {
        consumeRequest
                .wrapForEncode(control.requestFrame(), control.requestBodyOffset())
                .partition(partition)
                .offset(offset)
                .topic(topic);
        return control.call(ControlApiKeys.CONSUME_ACCESS, consumeRequest, consumeResponse);
    }

    /** RELEASE_ACCESS: the answer, valid until the next control request on this connection. */
    public ReleaseAccessResponse release(final String topic, final int partition, final int access) {
        releaseRequest
                .wrapForEncode(control.requestFrame(), control.requestBodyOffset())
                .partition(partition)
                .access(access)
                .topic(topic);
        return control.call(ControlApiKeys.RELEASE_ACCESS, releaseRequest, releaseResponse);
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

    /**
     * Gives up on {@code outstanding} send-queue operations (READs, atomics) whose completions were not reaped: moves the
     * queue pair to the error state, which ends them (flushed, if the NIC had not finished them), and reaps their
     * completions, for at most {@code timeoutMs}. Until they are reaped the NIC may still write the local memory they
     * target, so that memory must not be freed or reused before. Returns whether all were reaped.
     */
    public boolean drainSend(final int outstanding, final WorkCompletions completions, final long timeoutMs) {
        try {
            qp.moveToError();
        } catch (final RuntimeException e) {
            // Already in error (a failed completion moves it there): the flush is under way all the same.
        }
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        int left = outstanding;
        while (left > 0) {
            final int reaped = sendCq.poll(completions);
            left -= reaped;
            if (reaped == 0) {
                if (System.nanoTime() - deadline > 0) {
                    return false;
                }
                LockSupport.parkNanos(100_000L);
            }
        }
        return true;
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

    /**
     * Whether the broker closed the control connection (stopped, killed, or dropped this session), found without
     * waiting: its queue pair is gone with it, and writes it took but never committed will not be answered.
     */
    public boolean brokerClosed() {
        return control.peerClosed();
    }

    /** Closes the control connection (the broker drops the session and every grant) and frees the device. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        control.close();
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
