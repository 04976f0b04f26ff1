package io.isthmus.broker.rdma;

import io.isthmus.broker.partition.Partition;
import io.isthmus.ffi.verbs.AccessFlags;
import io.isthmus.ffi.verbs.MemoryRegion;
import io.isthmus.ffi.verbs.ProtectionDomain;
import io.isthmus.ffi.verbs.QueuePair;
import io.isthmus.ffi.verbs.QueuePairAttributes;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * One RDMA client: the broker's queue pair connected to it, bound to the TCP connection that asked for it, and the
 * access it holds. Confined to the datapath thread.
 *
 * <p>Each session has a protection domain of its own, holding its queue pair and every registration its grants use
 * (segments it reads, its produce staging slots, its range of metadata slots, aborted-transaction arrays,
 * shared-produce words): an rkey works only on the queue pair it was given to, so one client can never use another's,
 * and dropping a read grant deregisters exactly that client's access, at the NIC, whoever else reads the same segment.
 * A producer's staging slots stay registered as long as the session (writes into them after a grant was dropped are
 * answered ACCESS_REVOKED and never reach the log). The queue pair starts with remote READ only and gains WRITE (and
 * ATOMIC, for shared produce) with the first produce grant that needs it.
 *
 * <p>Work-request ids carry {@code sessionId << 16 | index << 1 | kind} (see {@link #wrId}) so a completion finds its
 * session without a map lookup, and a late completion of a closed session is recognised by its id.
 */
final class RdmaSession {
    static final int KIND_RECEIVE = 0;
    static final int KIND_SEND = 1;
    static final int INDEX_BITS = 15;

    final long sessionId;
    final int index;
    final long connectionId;
    final QueuePair qp;
    /** The session's own protection domain; null only in tests without a device. */
    final ProtectionDomain pd;
    /** The session's registrations of log segments, in {@link #pd}. */
    final SegmentRegistrations registrations;

    final int credits;
    final int reservedCompletions;
    /** Who connected, as the TCP connection authenticated them: every grant is checked against their ACLs. */
    final KafkaPrincipal principal;
    /** Where they connected from, which ACLs may name; null off an IP network. */
    final InetAddress host;

    final List<ProduceGrant> produceGrants = new ArrayList<>(2);
    final List<ConsumeGrant> consumeGrants = new ArrayList<>(4);
    int slotRange = -1;
    /** The session's slot range registered for remote READ, in {@link #pd}; null until it consumes. */
    MemoryRegion slotRegistration;
    /** The session's produce staging slots, registered in {@link #pd} at its first produce grant; null until then. */
    ProduceStaging staging;
    /** The session's slice of the broker's ack buffer, registered in {@link #pd} at its first ack. */
    MemoryRegion ackRegistration;
    /**
     * Torn down: its queue pair, staging slots and registrations are gone. Writes of it still waiting in a shared
     * segment's sequencer can no longer be read, and nothing is answered to it any more.
     */
    boolean closed;
    /** The remote access its queue pair allows now ({@link AccessFlags}). */
    int remoteAccess;

    int unsignaledSends;
    int ackCursor;
    /** Send-queue entries (acks) posted and not yet retired by a polled signalled completion. */
    int sendQueued;
    /**
     * Acks waiting for send-queue room, oldest first, in a ring of {@code credits} entries: each answers a write that
     * took one of the client's credits, so no more can wait. Acks leave in the order they were made.
     */
    final long[] pendingBaseOffsets;

    final int[] pendingImmediates;
    final short[] pendingErrors;
    int pendingHead;
    int pendingCount;

    RdmaSession(
            final long sessionId,
            final int index,
            final long connectionId,
            final QueuePair qp,
            final ProtectionDomain pd,
            final int remoteAccess,
            final int credits,
            final int reservedCompletions,
            final KafkaPrincipal principal,
            final InetAddress host) {
        this.pd = pd;
        this.registrations = pd == null ? null : new SegmentRegistrations(pd);
        this.remoteAccess = remoteAccess;
        this.principal = principal;
        this.host = host;
        this.sessionId = sessionId;
        this.index = index;
        this.connectionId = connectionId;
        this.qp = qp;
        this.credits = credits;
        this.reservedCompletions = reservedCompletions;
        this.pendingBaseOffsets = new long[credits];
        this.pendingImmediates = new int[credits];
        this.pendingErrors = new short[credits];
    }

    /** Queues an ack behind the others waiting; false if the ring is full (the client wrote beyond its credits). */
    boolean offerPendingAck(final long baseOffset, final int immediate, final short errorCode) {
        if (pendingCount == credits) {
            return false;
        }
        final int at = (pendingHead + pendingCount) % credits;
        pendingBaseOffsets[at] = baseOffset;
        pendingImmediates[at] = immediate;
        pendingErrors[at] = errorCode;
        pendingCount++;
        return true;
    }

    /** Drops the oldest waiting ack, once it was posted. */
    void removePendingAck() {
        pendingHead = (pendingHead + 1) % credits;
        pendingCount--;
    }

    long wrId(final int kind) {
        return sessionId << (INDEX_BITS + 1) | (long) index << 1 | kind;
    }

    static int indexOf(final long wrId) {
        return (int) (wrId >>> 1) & ((1 << INDEX_BITS) - 1);
    }

    static long sessionIdOf(final long wrId) {
        return wrId >>> (INDEX_BITS + 1);
    }

    static int kindOf(final long wrId) {
        return (int) wrId & 1;
    }

    /**
     * Widens what remote peers may do on the queue pair by {@code access} (an {@code ibv_modify_qp} of its access
     * flags, allowed in RTS), if it does not allow it yet.
     */
    void allowRemote(final int access) {
        if ((remoteAccess & access) == access) {
            return;
        }
        qp.modify(new QueuePairAttributes().accessFlags(remoteAccess | access));
        remoteAccess |= access;
    }

    /**
     * Readies the session to produce: its queue pair allows remote WRITE and (shared) remote atomics, and its staging
     * slots exist. Nothing else of the broker becomes writable for it.
     */
    void allowProduce(final int access, final int stagingSlotBytes) {
        allowRemote(access);
        if (staging == null) {
            staging = ProduceStaging.allocate(pd, credits, stagingSlotBytes);
        }
    }

    /**
     * Frees what the session holds once its grants are dropped: the queue pair first (nothing can use an rkey after),
     * then its registrations, then its protection domain, in reverse order of creation.
     */
    void closeResources() {
        closed = true;
        qp.close();
        if (staging != null) {
            staging.close();
            staging = null;
        }
        if (slotRegistration != null) {
            slotRegistration.close();
            slotRegistration = null;
        }
        if (ackRegistration != null) {
            ackRegistration.close();
            ackRegistration = null;
        }
        if (registrations != null) {
            registrations.close();
        }
        if (pd != null) {
            pd.close();
        }
    }

    ProduceGrant produceGrant(final Partition partition) {
        for (int i = 0; i < produceGrants.size(); i++) {
            if (produceGrants.get(i).partition == partition) {
                return produceGrants.get(i);
            }
        }
        return null;
    }

    ProduceGrant produceGrantForSegment(final int segmentId) {
        for (int i = 0; i < produceGrants.size(); i++) {
            if (produceGrants.get(i).segmentId() == segmentId) {
                return produceGrants.get(i);
            }
        }
        return null;
    }

    ConsumeGrant consumeGrant(final Partition partition) {
        for (int i = 0; i < consumeGrants.size(); i++) {
            if (consumeGrants.get(i).partition == partition) {
                return consumeGrants.get(i);
            }
        }
        return null;
    }

    /** The lowest slot index of the range not used by a consume grant, or -1. */
    int freeSlotIndex(final int slotsPerRange) {
        for (int candidate = 0; candidate < slotsPerRange; candidate++) {
            boolean taken = false;
            for (int i = 0; i < consumeGrants.size(); i++) {
                if (consumeGrants.get(i).slotIndex == candidate) {
                    taken = true;
                    break;
                }
            }
            if (!taken) {
                return candidate;
            }
        }
        return -1;
    }

    /** Slots a consumer must READ to cover every slot in use: up to the highest used index. */
    int slotsInUse() {
        int highest = -1;
        for (int i = 0; i < consumeGrants.size(); i++) {
            highest = Math.max(highest, consumeGrants.get(i).slotIndex);
        }
        return highest + 1;
    }

    @Override
    public String toString() {
        return "RdmaSession{sessionId=" + sessionId + ", connectionId=" + connectionId + ", qpNumber="
                + (qp.isClosed() ? "closed" : qp.qpNumber()) + ", produceGrants=" + produceGrants.size()
                + ", consumeGrants=" + consumeGrants.size() + '}';
    }
}
