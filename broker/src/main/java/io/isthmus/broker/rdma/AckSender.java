package io.isthmus.broker.rdma;

import io.isthmus.ffi.verbs.AccessFlags;
import io.isthmus.ffi.verbs.Opcode;
import io.isthmus.ffi.verbs.SendFlags;
import io.isthmus.ffi.verbs.SendWorkRequests;
import io.isthmus.protocol.control.ProduceAckDescriptor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The datapath's answers to produce writes: one {@link ProduceAckDescriptor} SEND per write, on the session's queue
 * pair, in the order they are given (each grant gives its writes' answers in the order the writes were handled, also
 * where some wait for the in-sync replicas: {@link AnswerQueue}).
 *
 * <p>Acks are signalled one in {@code maxSendWr / 4}, and each signalled completion retires that many send-queue
 * entries. An ack that finds its session's send queue full (the client's NIC acknowledges our SENDs slower than it
 * writes) waits, in order, in the session's ring of {@code credits} pending acks and is posted when completions free
 * room: nothing is posted into a full send queue at any speed. Each session has a ring of {@code maxSendWr} ack
 * buffers, registered in the session's own protection domain at its first ack (a send's buffer must be in its queue
 * pair's domain); a buffer is reused only after the send that read it was retired (or copied it inline).
 *
 * <p>Confined to the datapath thread.
 */
final class AckSender implements SharedProducePath.Acker {
    private static final Logger LOG = LoggerFactory.getLogger(AckSender.class);

    /** What happens to a session whose ack cannot be posted: the control plane tears it down. */
    interface SessionFailure {
        void teardown(RdmaSession session, String reason);
    }

    private final int maxSendWr;
    private final int signalInterval;
    private final SendWorkRequests sends;
    private final MemorySegment acks;
    private final SessionFailure failure;
    private volatile long deferredAcks;
    /** Fault injection for tests: how long the datapath thread sleeps before each ack (0: never). */
    private volatile long ackDelayNanos;

    AckSender(final RdmaSettings settings, final Arena arena, final int sessionSlots, final SessionFailure failure) {
        this.maxSendWr = settings.maxSendWr();
        this.signalInterval = Math.max(1, maxSendWr / 4);
        this.sends = SendWorkRequests.allocate(arena, 1, 1);
        this.acks = arena.allocate((long) sessionSlots * maxSendWr * ProduceAckDescriptor.LENGTH, 64);
        this.failure = failure;
    }

    /**
     * Answers a write: posts the ack now if the session's send queue has room and no earlier ack is waiting, else
     * queues it behind them.
     */
    @Override
    public void ack(final RdmaSession session, final long baseOffset, final int immediate, final short errorCode) {
        if (session.closed) {
            return; // torn down: nobody to answer (a shared write of it was given up when its turn came)
        }
        final long delay = ackDelayNanos;
        if (delay > 0) {
            LockSupport.parkNanos(delay);
        }
        if (session.pendingCount == 0 && session.sendQueued < maxSendWr) {
            postAck(session, baseOffset, immediate, errorCode);
            return;
        }
        deferredAcks++;
        if (!session.offerPendingAck(baseOffset, immediate, errorCode)) {
            LOG.warn(
                    "more acks waiting than the client has credits, tearing the session down: {} pending={}",
                    session,
                    session.pendingCount);
            failure.teardown(session, "acks beyond credits");
        }
    }
    /** A signalled ack SEND of {@code session} completed: the send queue drained up to it; waiting acks go now. */
    void sendCompleted(final RdmaSession session) {
        session.sendQueued -= signalInterval;
        postPendingAcks(session);
    }

    private void postPendingAcks(final RdmaSession session) {
        while (session.pendingCount > 0 && session.sendQueued < maxSendWr) {
            final int at = session.pendingHead;
            session.removePendingAck();
            if (!postAck(
                    session,
                    session.pendingBaseOffsets[at],
                    session.pendingImmediates[at],
                    session.pendingErrors[at])) {
                return;
            }
        }
    }
    /** Posts one ack SEND; false if posting failed (the session is torn down then). */
    private boolean postAck(
            final RdmaSession session, final long baseOffset, final int immediate, final short errorCode) {
        final long sliceOffset = (long) session.index * maxSendWr * ProduceAckDescriptor.LENGTH;
        final long offset = (long) session.ackCursor * ProduceAckDescriptor.LENGTH;
        session.ackCursor = (session.ackCursor + 1) % maxSendWr;
        ProduceAckDescriptor.write(acks, sliceOffset + offset, baseOffset, immediate, errorCode);
        final boolean signal = ++session.unsignaledSends >= signalInterval;
        if (signal) {
            session.unsignaledSends = 0;
        }
        int flags = signal ? SendFlags.SIGNALED : 0;
        if (session.qp.maxInlineData() >= ProduceAckDescriptor.LENGTH) {
            flags |= SendFlags.INLINE;
        }
        try {
            if (session.ackRegistration == null) {
                // The session's slice, in its own protection domain: a send's buffer must be in its queue pair's.
                session.ackRegistration = session.pd.registerMemory(
                        acks.asSlice(sliceOffset, (long) maxSendWr * ProduceAckDescriptor.LENGTH),
                        AccessFlags.LOCAL_WRITE);
            }
            sends.set(0, session.wrId(RdmaSession.KIND_SEND), Opcode.SEND, flags)
                    .sge(0, 0, session.ackRegistration, offset, ProduceAckDescriptor.LENGTH);
            session.qp.postSend(sends, 1);
        } catch (final RuntimeException e) {
            LOG.warn("posting an ack failed, tearing the session down: {}", session, e);
            failure.teardown(session, "post_send failed");
            return false;
        }
        session.sendQueued++;
        return true;
    }
    /** Acks that had to wait for send-queue room. */
    long deferredAcks() {
        return deferredAcks;
    }

    /** Makes every later ack wait {@code nanos} first (0 stops it); see {@link RdmaDatapath#delayAcks}. */
    void delay(final long nanos) {
        ackDelayNanos = nanos;
    }
}
