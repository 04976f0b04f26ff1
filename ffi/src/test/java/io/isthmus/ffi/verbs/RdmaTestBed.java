package io.isthmus.ffi.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Two RC queue pairs on the same device, connected by hand (QPN/GID/PSN exchanged in memory),
 * with a registered 64 KiB buffer each, reusable work requests and completion arrays. Used by the
 * tests tagged "rdma" (the Soft-RoCE guest sets ISTHMUS_RDMA_DEVICE and ISTHMUS_RDMA_GID_INDEX).
 */
public final class RdmaTestBed implements AutoCloseable {
    public static final int PORT = 1;
    public static final int BUFFER_SIZE = 64 * 1024;
    private static final long COMPLETION_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(60);

    public final Arena arena = Arena.ofShared();
    public final DeviceList devices;
    public final Context context;
    public final ProtectionDomain pd;
    public final CompletionQueue cqA;
    public final CompletionQueue cqB;
    public final QueuePair qpA;
    public final QueuePair qpB;
    public final MemorySegment bufferA;
    public final MemorySegment bufferB;
    public final MemoryRegion mrA;
    public final MemoryRegion mrB;
    public final SendWorkRequests sends;
    public final ReceiveWorkRequests receives;
    public final WorkCompletions completions;
    public final SharedReceiveQueue srq;

    public RdmaTestBed() {
        this(null);
    }

    /** A test bed whose QP B receives from {@code srqFactory}'s SRQ when non-null. */
    public RdmaTestBed(java.util.function.Function<ProtectionDomain, SharedReceiveQueue> srqFactory) {
        devices = DeviceList.open();
        context = devices.byName(deviceName()).open();
        pd = context.allocateProtectionDomain();
        cqA = context.createCompletionQueue(256);
        cqB = context.createCompletionQueue(256);
        srq = srqFactory == null ? null : srqFactory.apply(pd);
        QueuePairOptions options = new QueuePairOptions()
                .maxSendWr(128)
                .maxRecvWr(128)
                .maxSendSge(4)
                .maxRecvSge(4)
                .maxInlineData(64);
        qpA = pd.createQueuePair(options.completionQueue(cqA));
        qpB = pd.createQueuePair(options.completionQueue(cqB).sharedReceiveQueue(srq));
        bufferA = arena.allocate(BUFFER_SIZE, 4096);
        bufferB = arena.allocate(BUFFER_SIZE, 4096);
        mrA = pd.registerMemory(bufferA, AccessFlags.ALL_REMOTE);
        mrB = pd.registerMemory(bufferB, AccessFlags.ALL_REMOTE);
        sends = SendWorkRequests.allocate(arena, 16, 4);
        receives = ReceiveWorkRequests.allocate(arena, 16, 4);
        completions = WorkCompletions.allocate(arena, 16);
        connect(qpA, qpB);
    }

    public static String deviceName() {
        String name = System.getenv("ISTHMUS_RDMA_DEVICE");
        return name == null ? "rxe0" : name;
    }

    public static int gidIndex() {
        String index = System.getenv("ISTHMUS_RDMA_GID_INDEX");
        return index == null ? 1 : Integer.parseInt(index);
    }

    /** The manual connection path: exchange QPN, PSN and GID, then INIT, RTR, RTS on both sides. */
    private void connect(QueuePair a, QueuePair b) {
        Gid gid = context.queryGid(PORT, gidIndex());
        Mtu mtu = context.queryPort(PORT).activeMtu();
        int psnA = ThreadLocalRandom.current().nextInt(1 << 24);
        int psnB = ThreadLocalRandom.current().nextInt(1 << 24);
        QueuePairAddress addressA = new QueuePairAddress(a.qpNumber(), psnA, gid, 0);
        QueuePairAddress addressB = new QueuePairAddress(b.qpNumber(), psnB, gid, 0);
        a.moveToInit(PORT, AccessFlags.ALL_REMOTE);
        b.moveToInit(PORT, AccessFlags.ALL_REMOTE);
        a.moveToReadyToReceive(addressB, mtu, PORT, gidIndex(), 4);
        b.moveToReadyToReceive(addressA, mtu, PORT, gidIndex(), 4);
        a.moveToReadyToSend(psnA, 4);
        b.moveToReadyToSend(psnB, 4);
    }

    /** Polls {@code cq} until {@code count} completions arrived in {@link #completions}; fails after 60 s. */
    public int await(CompletionQueue cq, int count) {
        int got = 0;
        long deadline = System.nanoTime() + COMPLETION_TIMEOUT_NANOS;
        while (got < count) {
            got += cq.poll(completions, count - got);
            if (got < count && System.nanoTime() > deadline) {
                throw new AssertionError("no completion within 60 s: expected=" + count + ", got=" + got);
            }
        }
        return got;
    }

    /** Polls one completion and asserts it succeeded. */
    public void awaitSuccess(CompletionQueue cq) {
        await(cq, 1);
        assertThat(completions.status(0)).as(completions.describe(0)).isEqualTo(WorkCompletionStatus.SUCCESS);
    }

    @Override
    public void close() {
        qpB.close();
        qpA.close();
        if (srq != null) {
            srq.close();
        }
        mrB.close();
        mrA.close();
        cqB.close();
        cqA.close();
        pd.close();
        context.close();
        devices.close();
        arena.close();
    }
}
