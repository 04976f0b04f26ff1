package io.isthmus.broker.rdma;

import io.isthmus.broker.partition.Partition;
import io.isthmus.ffi.verbs.MemoryRegion;
import io.isthmus.protocol.control.ProduceImmediateDescriptor;

/**
 * Produce access of one connection to one partition's active segment. Exclusive: where the next batch must start and
 * which order number its immediate must carry. Shared: the {@link SharedSegment} whose word the producer reserves
 * through (the broker orders its writes there). Either way the registrations it hands out (the segment's, and for
 * shared access the reservation word's) are the session's own, in its protection domain, and end with the grant.
 * Confined to the datapath thread.
 */
final class ProduceGrant {
    final RdmaSession session;
    final Partition partition;
    /** The session's writable registration of the segment. */
    final SegmentRegistration registration;
    /** Null for exclusive access. */
    final SharedSegment shared;
    /** Shared: the session's registration of the segment's reservation word alone; null for exclusive access. */
    final MemoryRegion word;

    private boolean accessReleased;

    long tail;
    int nextOrder;
    /**
     * Exclusive: a write was discarded as a duplicate, so the producer's idea of the tail is ahead of ours; its writes
     * are answered ACCESS_REVOKED until it asks for access again and learns {@link #tail} and {@link #nextOrder}.
     */
    boolean suspended;

    private ProduceGrant(
            final RdmaSession session,
            final Partition partition,
            final SegmentRegistration registration,
            final SharedSegment shared,
            final MemoryRegion word) {
        this.session = session;
        this.partition = partition;
        this.registration = registration;
        this.shared = shared;
        this.word = word;
        this.tail = registration.segment().committedPosition();
        this.nextOrder = 0;
    }

    static ProduceGrant exclusive(
            final RdmaSession session, final Partition partition, final SegmentRegistration registration) {
        return new ProduceGrant(session, partition, registration, null, null);
    }

    static ProduceGrant shared(
            final RdmaSession session,
            final SharedSegment segment,
            final SegmentRegistration registration,
            final MemoryRegion word) {
        return new ProduceGrant(session, segment.owner.partition, registration, segment, word);
    }

    /**
     * Deregisters what the grant gave the session (the word first, then the segment): its rkeys stop working, so a
     * write still on the wire fails at the NIC. Idempotent: a shared segment that ends releases its holders' access
     * before they give their grants back.
     */
    void releaseAccess() {
        if (accessReleased) {
            return;
        }
        accessReleased = true;
        if (word != null) {
            word.close();
        }
        session.registrations.release(registration);
    }

    int segmentId() {
        return registration.segment().id();
    }

    void committed(final long length) {
        tail += length;
        nextOrder = ProduceImmediateDescriptor.nextOrder(nextOrder);
    }

    /** A write in order that committed nothing (a duplicate): its order is used up, the tail stays. */
    void skipped() {
        nextOrder = ProduceImmediateDescriptor.nextOrder(nextOrder);
    }

    @Override
    public String toString() {
        return shared != null
                ? "ProduceGrant{partition=" + partition.topicPartition() + ", shared=" + shared + '}'
                : "ProduceGrant{partition=" + partition.topicPartition() + ", segmentId=" + segmentId() + ", tail="
                        + tail + ", nextOrder=" + nextOrder + (suspended ? ", suspended" : "") + '}';
    }
}
