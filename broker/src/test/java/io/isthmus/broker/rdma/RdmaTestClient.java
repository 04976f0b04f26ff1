package io.isthmus.broker.rdma;

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
import io.isthmus.ffi.verbs.WorkCompletionStatus;
import io.isthmus.ffi.verbs.WorkCompletions;
import io.isthmus.protocol.control.ConsumeAccessRequest;
import io.isthmus.protocol.control.ConsumeAccessResponse;
import io.isthmus.protocol.control.ControlApiKeys;
import io.isthmus.protocol.control.ControlErrorCodes;
import io.isthmus.protocol.control.ControlFlyweight;
import io.isthmus.protocol.control.ControlFrame;
import io.isthmus.protocol.control.ControlHeaderDescriptor;
import io.isthmus.protocol.control.ControlRequestHeader;
import io.isthmus.protocol.control.ProduceAccessRequest;
import io.isthmus.protocol.control.ProduceAccessResponse;
import io.isthmus.protocol.control.ProduceAckDescriptor;
import io.isthmus.protocol.control.ProduceImmediateDescriptor;
import io.isthmus.protocol.control.ProduceStagingDescriptor;
import io.isthmus.protocol.control.RdmaConnectRequest;
import io.isthmus.protocol.control.RdmaConnectResponse;
import io.isthmus.protocol.control.ReleaseAccessRequest;
import io.isthmus.protocol.control.ReleaseAccessResponse;
import io.isthmus.protocol.control.SharedProduceWordDescriptor;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Socket;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * An RDMA client for tests, written straight against the ffi binding: the control plane over a plain socket with the
 * shared message flyweights (each answer in an array of its own, so a test may keep it), one RC queue pair with its own
 * send and receive CQs, a registered 1 MiB buffer (acks in its first 4 KiB, write sources and READ targets after).
 */
final class RdmaTestClient implements AutoCloseable {
    static final int ACK_CREDITS = 16;
    static final int PORT = 1;
    static final long DATA_OFFSET = 4096;
    /** Where a FETCH_AND_ADD puts the old value: after the acks, before the data. */
    static final long ATOMIC_OFFSET = 2048;

    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(60);

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final Arena arena = Arena.ofShared();
    private final DeviceList devices;
    private final Context context;
    private final ProtectionDomain pd;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final QueuePair qp;
    final MemorySegment buffer;
    private final MemoryRegion mr;
    private final SendWorkRequests sends;
    private final ReceiveWorkRequests receives;
    private final WorkCompletions completions;
    private final BackoffIdleStrategy idle = new BackoffIdleStrategy(20, 20, 1_000, 100_000);
    /** The request frame, reused: the header written once, the body and the size prefix per call. */
    private final byte[] request = new byte[4096];

    private final MemorySegment requestFrame = MemorySegment.ofArray(request);
    private final ControlRequestHeader header = new ControlRequestHeader()
            .wrapForEncode(requestFrame, ControlFrame.REQUEST_HEADER_OFFSET)
            .apiVersion(ControlApiKeys.VERSION)
            .clientId("rdma-test-client");
    private final long requestBody = ControlFrame.REQUEST_HEADER_OFFSET + header.bodyOffset();
    private int correlationId;
    RdmaConnectResponse connection;
    /** WRITE WITH IMMs posted into staging slots so far: what picks the next slot. */
    private long stagedWrites;

    RdmaTestClient(final String host, final int port) throws IOException {
        socket = new Socket(host, port);
        socket.setTcpNoDelay(true);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
        devices = DeviceList.open();
        context = devices.byName(deviceName()).open();
        pd = context.allocateProtectionDomain();
        sendCq = context.createCompletionQueue(64);
        recvCq = context.createCompletionQueue(64);
        qp = pd.createQueuePair(new QueuePairOptions()
                .sendCompletionQueue(sendCq)
                .receiveCompletionQueue(recvCq)
                .maxSendWr(32)
                .maxRecvWr(ACK_CREDITS)
                .maxSendSge(1)
                .maxRecvSge(1)
                .maxInlineData(64));
        buffer = arena.allocate(1 << 20, 4096);
        mr = pd.registerMemory(buffer, AccessFlags.LOCAL_WRITE);
        sends = SendWorkRequests.allocate(arena, 1, 1);
        receives = ReceiveWorkRequests.allocate(arena, ACK_CREDITS, 1);
        completions = WorkCompletions.allocate(arena, 1);
    }

    static String deviceName() {
        return io.isthmus.broker.testkit.SoftRoceDevice.name();
    }

    static int gidIndex() {
        return Integer.parseInt(io.isthmus.broker.testkit.SoftRoceDevice.gidIndex());
    }

    /** RDMA_CONNECT with a manual QP exchange; on success the QP is in RTS with ACK_CREDITS receives posted. */
    RdmaConnectResponse connect() {
        qp.moveToInit(PORT, AccessFlags.LOCAL_WRITE);
        for (int i = 0; i < ACK_CREDITS; i++) {
            receives.set(i, i).sge(i, 0, mr, (long) i * ProduceAckDescriptor.LENGTH, ProduceAckDescriptor.LENGTH);
        }
        qp.postReceive(receives, ACK_CREDITS);
        final Gid gid = context.queryGid(PORT, gidIndex());
        final Mtu mtu = context.queryPort(PORT).activeMtu();
        final int psn = ThreadLocalRandom.current().nextInt(1 << 24);
        connection = call(
                ControlApiKeys.RDMA_CONNECT,
                new RdmaConnectRequest()
                        .wrapForEncode(requestFrame, requestBody)
                        .qpNumber(qp.qpNumber())
                        .packetSequenceNumber(psn)
                        .gid(gid.raw())
                        .ackCredits(ACK_CREDITS)
                        .mtu(mtu.value()),
                new RdmaConnectResponse());
        if (connection.errorCode() == ControlErrorCodes.NONE) {
            qp.moveToReadyToReceive(
                    new QueuePairAddress(
                            connection.qpNumber(),
                            connection.packetSequenceNumber(),
                            Gid.of(connection.gid()),
                            connection.lid()),
                    Mtu.of(connection.mtu()),
                    PORT,
                    gidIndex(),
                    1);
            qp.moveToReadyToSend(psn, 4);
        }
        return connection;
    }

    /** First exclusive produce access. */
    ProduceAccessResponse produceAccess(final String topic, final int partition) {
        return produceAccess(topic, partition, 0, -1, -1);
    }

    /** First shared produce access. */
    ProduceAccessResponse produceAccessShared(final String topic, final int partition) {
        return produceAccess(topic, partition, ProduceAccessRequest.SHARED, -1, -1);
    }

    /** Exclusive access to the segment after the full one. */
    ProduceAccessResponse rollFull(final String topic, final int partition, final int fullSegmentId) {
        return produceAccess(topic, partition, ProduceAccessRequest.ROLL_FULL, fullSegmentId, -1);
    }

    /** Shared access to the segment after the full one, whose reservation {@code fullOrder} overflowed. */
    ProduceAccessResponse rollFullShared(
            final String topic, final int partition, final int fullSegmentId, final int fullOrder) {
        return produceAccess(
                topic,
                partition,
                ProduceAccessRequest.ROLL_FULL | ProduceAccessRequest.SHARED,
                fullSegmentId,
                fullOrder);
    }

    /** Push replication access, as broker {@code leaderId}, leading the partition in {@code leaderEpoch}, asks it. */
    ProduceAccessResponse replicaAccess(
            final String topic, final int partition, final int leaderId, final int leaderEpoch) {
        return produceAccess(topic, partition, ProduceAccessRequest.REPLICA, -1, -1, leaderId, leaderEpoch);
    }

    private ProduceAccessResponse produceAccess(
            final String topic, final int partition, final int flags, final int fullSegmentId, final int fullOrder) {
        return produceAccess(topic, partition, flags, fullSegmentId, fullOrder, -1, -1);
    }

    private ProduceAccessResponse produceAccess(
            final String topic,
            final int partition,
            final int flags,
            final int fullSegmentId,
            final int fullOrder,
            final int leaderId,
            final int leaderEpoch) {
        return call(
                ControlApiKeys.PRODUCE_ACCESS,
                new ProduceAccessRequest()
                        .wrapForEncode(requestFrame, requestBody)
                        .partition(partition)
                        .flags(flags)
                        .fullSegmentId(fullSegmentId)
                        .fullOrder(fullOrder)
                        .leaderId(leaderId)
                        .leaderEpoch(leaderEpoch)
                        .topic(topic),
                new ProduceAccessResponse());
    }

    ConsumeAccessResponse consumeAccess(final String topic, final int partition, final long offset) {
        return call(
                ControlApiKeys.CONSUME_ACCESS,
                new ConsumeAccessRequest()
                        .wrapForEncode(requestFrame, requestBody)
                        .partition(partition)
                        .offset(offset)
                        .topic(topic),
                new ConsumeAccessResponse());
    }

    ReleaseAccessResponse release(final String topic, final int partition, final int access) {
        return call(
                ControlApiKeys.RELEASE_ACCESS,
                new ReleaseAccessRequest()
                        .wrapForEncode(requestFrame, requestBody)
                        .partition(partition)
                        .access(access)
                        .topic(topic),
                new ReleaseAccessResponse());
    }

    /** Sends the request whose body is written after the header; the answer lands in an array of its own. */
    private <T extends ControlFlyweight<T>> T call(
            final short apiKey, final ControlFlyweight<?> body, final T response) {
        final int id = ++correlationId;
        header.apiKey(apiKey).correlationId(id);
        final int length = (int) requestBody + body.encodedLength();
        ControlFrame.putSize(requestFrame, 0, length);
        try {
            out.write(request, 0, length);
            out.flush();
            final int size = in.readInt();
            final byte[] answer = new byte[ControlHeaderDescriptor.SIZE_PREFIX_LENGTH + size];
            in.readFully(answer, ControlHeaderDescriptor.SIZE_PREFIX_LENGTH, size);
            final MemorySegment frame = MemorySegment.ofArray(answer);
            if (ControlFrame.responseCorrelationId(frame, 0) != id) {
                throw new AssertionError("correlation id mismatch: expected=" + id + " got="
                        + ControlFrame.responseCorrelationId(frame, 0));
            }
            return response.wrap(frame, ControlFrame.RESPONSE_BODY_OFFSET);
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * WRITE WITH IMM of {@code batch} to {@code remoteAddress}; returns the status of the write's own completion
     * (SUCCESS, or e.g. REM_ACCESS_ERR for a revoked rkey).
     */
    WorkCompletionStatus writeWithImm(
            final byte[] batch, final long remoteAddress, final int rkey, final int immediate) {
        MemorySegment.copy(batch, 0, buffer, ValueLayout.JAVA_BYTE, DATA_OFFSET, batch.length);
        sends.set(0, 1, Opcode.RDMA_WRITE_WITH_IMM, SendFlags.SIGNALED)
                .sge(0, 0, mr, DATA_OFFSET, batch.length)
                .rdma(0, remoteAddress, rkey)
                .immediate(0, immediate);
        qp.postSend(sends, 1);
        await(sendCq);
        return completions.status(0);
    }

    /** RDMA FETCH_AND_ADD of {@code add} on the word at {@code remoteAddress}; returns the word's old value. */
    long fetchAndAdd(final long remoteAddress, final int rkey, final long add) {
        sends.set(0, 3, Opcode.ATOMIC_FETCH_AND_ADD, SendFlags.SIGNALED)
                .sge(0, 0, mr, ATOMIC_OFFSET, SharedProduceWordDescriptor.LENGTH)
                .atomic(0, remoteAddress, rkey, add, 0);
        qp.postSend(sends, 1);
        await(sendCq);
        if (completions.status(0) != WorkCompletionStatus.SUCCESS) {
            throw new AssertionError("FETCH_AND_ADD failed: " + completions.describe(0));
        }
        return buffer.get(SharedProduceWordDescriptor.INT64, ATOMIC_OFFSET);
    }

    /** Reserves room for {@code batch} through a shared grant's word: the old word (order and position). */
    long reserve(final ProduceAccessResponse access, final byte[] batch) {
        return fetchAndAdd(
                access.wordAddress(), access.wordRkey(), SharedProduceWordDescriptor.reservation(batch.length));
    }

    /**
     * A plain RDMA WRITE (no immediate: the broker's CPU never hears of it) of {@code data} to {@code remoteAddress};
     * returns the status of its completion.
     */
    WorkCompletionStatus write(final byte[] data, final long remoteAddress, final int rkey) {
        MemorySegment.copy(data, 0, buffer, ValueLayout.JAVA_BYTE, DATA_OFFSET, data.length);
        sends.set(0, 4, Opcode.RDMA_WRITE, SendFlags.SIGNALED)
                .sge(0, 0, mr, DATA_OFFSET, data.length)
                .rdma(0, remoteAddress, rkey);
        qp.postSend(sends, 1);
        await(sendCq);
        return completions.status(0);
    }

    /**
     * WRITE WITH IMM of {@code batch} into the staging slot of this connection's next write ({@link
     * ProduceStagingDescriptor}: the n-th write goes to slot n mod credits), as a producer must.
     */
    WorkCompletionStatus writeStaged(final ProduceAccessResponse access, final byte[] batch, final int immediate) {
        return writeWithImm(batch, nextStagingSlot(access), access.stagingRkey(), immediate);
    }

    /** The address of the staging slot the next write must go to; counts that write. */
    long nextStagingSlot(final ProduceAccessResponse access) {
        final int slot = ProduceStagingDescriptor.slot(stagedWrites++, connection.produceCredits());
        return access.stagingAddress() + ProduceStagingDescriptor.slotOffset(slot, access.stagingSlotBytes());
    }

    /** Writes {@code batch} for reservation {@code word}, with the order it gave, into the next staging slot. */
    WorkCompletionStatus writeReserved(final ProduceAccessResponse access, final long word, final byte[] batch) {
        return writeStaged(
                access,
                batch,
                ProduceImmediateDescriptor.immediate(access.segmentId(), SharedProduceWordDescriptor.order(word)));
    }

    /** An acknowledgement from the broker. */
    record Ack(long baseOffset, int immediate, short errorCode) {}

    /** Waits for the next ack and posts its receive again. */
    Ack awaitAck() {
        await(recvCq);
        if (completions.status(0) != WorkCompletionStatus.SUCCESS) {
            throw new AssertionError("ack receive failed: " + completions.describe(0));
        }
        final int slot = (int) completions.wrId(0);
        final long offset = (long) slot * ProduceAckDescriptor.LENGTH;
        final Ack ack = new Ack(
                ProduceAckDescriptor.baseOffset(buffer, offset),
                ProduceAckDescriptor.immediate(buffer, offset),
                ProduceAckDescriptor.errorCode(buffer, offset));
        receives.set(0, slot).sge(0, 0, mr, offset, ProduceAckDescriptor.LENGTH);
        qp.postReceive(receives, 1);
        return ack;
    }

    /** RDMA READ of {@code length} bytes into the buffer at {@code DATA_OFFSET}; returns the status. */
    WorkCompletionStatus read(final long remoteAddress, final int rkey, final int length) {
        sends.set(0, 2, Opcode.RDMA_READ, SendFlags.SIGNALED)
                .sge(0, 0, mr, DATA_OFFSET, length)
                .rdma(0, remoteAddress, rkey);
        qp.postSend(sends, 1);
        await(sendCq);
        return completions.status(0);
    }

    /** What the last {@link #read} brought, {@code length} bytes from {@code offset} of it. */
    MemorySegment readData(final long offset, final long length) {
        return buffer.asSlice(DATA_OFFSET + offset, length);
    }

    private void await(final CompletionQueue cq) {
        final long deadline = System.nanoTime() + TIMEOUT_NANOS;
        idle.reset();
        while (cq.poll(completions, 1) == 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("no completion within 60 s");
            }
            idle.idle(0);
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
        qp.close();
        mr.close();
        recvCq.close();
        sendCq.close();
        pd.close();
        context.close();
        devices.close();
        arena.close();
    }
}
