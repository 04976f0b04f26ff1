package io.isthmus.broker.rdma;

import io.isthmus.ffi.verbs.AccessFlags;
import io.isthmus.ffi.verbs.CompletionQueue;
import io.isthmus.ffi.verbs.MemoryRegion;
import io.isthmus.ffi.verbs.Opcode;
import io.isthmus.ffi.verbs.QueuePair;
import io.isthmus.ffi.verbs.QueuePairAddress;
import io.isthmus.ffi.verbs.QueuePairOptions;
import io.isthmus.ffi.verbs.SendFlags;
import io.isthmus.ffi.verbs.SendWorkRequests;
import io.isthmus.ffi.verbs.WorkCompletions;
import io.isthmus.protocol.control.SharedProduceWordDescriptor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The broker's own RDMA atomics on its reservation words: two queue pairs on the broker's device connected to each
 * other, so that a FETCH_AND_ADD the broker makes (reserving for a TCP producer, or closing a word when it revokes
 * access) goes through the device like the remote producers' and is atomic with theirs. KafkaDirect does the same
 * ("issuing an RDMA atomic to itself"); a CPU atomic on the word would not be, on devices whose atomics are only
 * atomic among themselves (IBV_ATOMIC_HCA).
 *
 * <p>Confined to the datapath thread: one operation at a time, waited for by polling a completion queue of its own.
 * Resources are owned here and closed in reverse order of creation.
 */
final class LoopbackAtomics implements AutoCloseable {
    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final Arena arena;
    private final CompletionQueue cq;
    private final QueuePair requester;
    private final QueuePair responder;
    private final MemorySegment result;
    private final MemoryRegion resultRegion;
    private final SendWorkRequests sends;
    private final WorkCompletions completions;

    private LoopbackAtomics(
            final Arena arena,
            final CompletionQueue cq,
            final QueuePair requester,
            final QueuePair responder,
            final MemorySegment result,
            final MemoryRegion resultRegion) {
        this.arena = arena;
        this.cq = cq;
        this.requester = requester;
        this.responder = responder;
        this.result = result;
        this.resultRegion = resultRegion;
        this.sends = SendWorkRequests.allocate(arena, 1, 1);
        this.completions = WorkCompletions.allocate(arena, 4);
    }

    /** Creates the pair on {@code device} and connects it to itself. */
    static LoopbackAtomics open(final RdmaDevice device) {
        final Arena arena = Arena.ofShared();
        CompletionQueue cq = null;
        QueuePair requester = null;
        QueuePair responder = null;
        MemoryRegion resultRegion = null;
        try {
            cq = device.context.createCompletionQueue(8);
            final QueuePairOptions options = new QueuePairOptions()
                    .completionQueue(cq)
                    .maxSendWr(4)
                    .maxRecvWr(1)
                    .maxSendSge(1)
                    .maxRecvSge(1);
            requester = device.pd.createQueuePair(options);
            responder = device.pd.createQueuePair(options);
            final int requesterPsn = ThreadLocalRandom.current().nextInt(1 << 24);
            final int responderPsn = ThreadLocalRandom.current().nextInt(1 << 24);
            requester.moveToInit(device.port, AccessFlags.LOCAL_WRITE);
            responder.moveToInit(device.port, AccessFlags.ALL_REMOTE);
            requester.moveToReadyToReceive(
                    new QueuePairAddress(responder.qpNumber(), responderPsn, device.gid, device.lid),
                    device.mtu,
                    device.port,
                    device.gidIndex,
                    1);
            responder.moveToReadyToReceive(
                    new QueuePairAddress(requester.qpNumber(), requesterPsn, device.gid, device.lid),
                    device.mtu,
                    device.port,
                    device.gidIndex,
                    device.maxReadAtomic);
            requester.moveToReadyToSend(requesterPsn, 1);
            responder.moveToReadyToSend(responderPsn, 1);
            final MemorySegment result = arena.allocate(SharedProduceWordDescriptor.LENGTH, 64);
            resultRegion = device.pd.registerMemory(result, AccessFlags.LOCAL_WRITE);
            return new LoopbackAtomics(arena, cq, requester, responder, result, resultRegion);
        } catch (final RuntimeException e) {
            if (resultRegion != null) {
                resultRegion.close();
            }
            if (responder != null) {
                responder.close();
            }
            if (requester != null) {
                requester.close();
            }
            if (cq != null) {
                cq.close();
            }
            arena.close();
            throw e;
        }
    }

    /**
     * FETCH_AND_ADD of {@code add} to the word at {@code address} ({@code rkey}), waited for.
     *
     * @return the word's old value
     * @throws IllegalStateException if the operation fails or does not complete within 5 s
     */
    long fetchAndAdd(final long address, final int rkey, final long add) {
        sends.set(0, 1, Opcode.ATOMIC_FETCH_AND_ADD, SendFlags.SIGNALED)
                .sge(0, 0, resultRegion, 0, SharedProduceWordDescriptor.LENGTH)
                .atomic(0, address, rkey, add, 0);
        requester.postSend(sends, 1);
        final long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (cq.poll(completions, 1) == 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("loopback FETCH_AND_ADD did not complete within 5 s: address=0x"
                        + Long.toHexString(address) + " requesterQp=" + requester.qpNumber());
            }
            Thread.onSpinWait();
        }
        if (!completions.isSuccess(0)) {
            throw new IllegalStateException("loopback FETCH_AND_ADD failed: address=0x" + Long.toHexString(address)
                    + " completion=" + completions.describe(0));
        }
        return result.get(SharedProduceWordDescriptor.INT64, 0);
    }

    @Override
    public void close() {
        resultRegion.close();
        responder.close();
        requester.close();
        cq.close();
        arena.close();
    }
}
