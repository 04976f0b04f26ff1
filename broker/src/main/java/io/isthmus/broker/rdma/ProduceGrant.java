package io.isthmus.broker.rdma;

import io.isthmus.broker.log.LogSegment;
import io.isthmus.broker.log.SegmentLease;
import io.isthmus.broker.partition.Partition;
import io.isthmus.ffi.verbs.MemoryRegion;
import io.isthmus.protocol.control.ControlErrorCodes;
import io.isthmus.protocol.control.ProduceAccessResponse;
import io.isthmus.protocol.control.ProduceImmediateDescriptor;

/**
 * Produce access of one connection to one partition's active segment. Exclusive: where the next batch must start and
 * which order number its immediate must carry. Shared: the {@link SharedSegment} whose word the producer reserves
 * through (the broker orders its writes there). The producer writes into its session's {@link ProduceStaging staging
 * slots}, never the segment: the grant holds a lease on the segment (so its mapping stays while batches are copied in)
 * and, for shared access, the session's own registration of the reservation word, which ends with the grant.
 * Confined to the datapath thread.
 */
final class ProduceGrant {
    final RdmaSession session;
    final Partition partition;
    /** Keeps the granted segment mapped while the grant lasts. */
    final SegmentLease lease;
    /** Null for exclusive access. */
    final SharedSegment shared;
    /** Shared: the session's registration of the segment's reservation word alone; null for exclusive access. */
    final MemoryRegion word;
    /** The leader epoch, acks and timeout the grant was made on. */
    final ProduceTerms terms;
    /** The answers its writes are owed, sent in the order the writes were handled. */
    final AnswerQueue answers;
    /**
     * Push replication: the leader whose committed batches the writes carry, to this follower's replica; -1 for a
     * producer's grant. Its {@link #terms} hold the leader epoch the leader pushes in.
     */
    final int replicaLeaderId;

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
            final SegmentLease lease,
            final SharedSegment shared,
            final MemoryRegion word,
            final ProduceTerms terms,
            final int replicaLeaderId) {
        this.session = session;
        this.replicaLeaderId = replicaLeaderId;
        this.partition = partition;
        this.lease = lease;
        this.shared = shared;
        this.word = word;
        this.terms = terms;
        this.answers = new AnswerQueue(session.credits);
        this.tail = lease.segment().committedPosition();
        this.nextOrder = 0;
    }

    static ProduceGrant exclusive(
            final RdmaSession session, final Partition partition, final SegmentLease lease, final ProduceTerms terms) {
        return new ProduceGrant(session, partition, lease, null, null, terms, -1);
    }

    /**
     * Push replication access of broker {@code leaderId}, leading {@code partition} in {@code leaderEpoch}, to this
     * follower's replica. The lease is on the replica's active segment when granted: its id names the grant in the
     * writes' immediates; where the batches go is the replica's log end, wherever that is then.
     */
    static ProduceGrant replica(
            final RdmaSession session,
            final Partition partition,
            final SegmentLease lease,
            final int leaderId,
            final int leaderEpoch) {
        return new ProduceGrant(
                session, partition, lease, null, null, new ProduceTerms(leaderEpoch, (short) 1, 0), leaderId);
    }

    boolean isReplica() {
        return replicaLeaderId >= 0;
    }

    /** Shared access, served by a single broker only: its writes are answered once committed. */
    static ProduceGrant shared(
            final RdmaSession session, final SharedSegment segment, final SegmentLease lease, final MemoryRegion word) {
        return new ProduceGrant(
                session,
                segment.owner.partition,
                lease,
                segment,
                word,
                new ProduceTerms(segment.owner.leaderEpoch, (short) 1, 0),
                -1);
    }

    /**
     * Fills what every produce grant answers, exclusive or shared: the segment, where its batches start going and how
     * far they may go, and the session's staging slots. The caller adds what its kind of grant needs.
     */
    ProduceAccessResponse answer(final ProduceAccessResponse response, final long tailPosition) {
        final LogSegment segment = lease.segment();
        return session.staging
                .answer(response.errorCode(ControlErrorCodes.NONE))
                .segmentId(segment.id())
                .tailPosition(tailPosition)
                .capacity(segment.capacity())
                .segmentBaseOffset(segment.baseOffset());
    }

    /**
     * Ends what the grant gave the session: the word's registration (its rkey stops working, so a reservation still
     * on the wire fails at the NIC) and the lease on the segment. Idempotent: a shared segment that ends releases its
     * holders' access before they give their grants back.
     */
    void releaseAccess() {
        if (accessReleased) {
            return;
        }
        accessReleased = true;
        if (word != null) {
            word.close();
        }
        lease.close();
    }

    int segmentId() {
        return lease.segment().id();
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
                : isReplica()
                        ? "ProduceGrant{partition=" + partition.topicPartition() + ", replicaOfLeader="
                                + replicaLeaderId + ", segmentId=" + segmentId() + ", nextOrder=" + nextOrder + ", "
                                + terms + '}'
                        : "ProduceGrant{partition=" + partition.topicPartition() + ", segmentId=" + segmentId()
                                + ", tail="
                                + tail + ", nextOrder=" + nextOrder + ", " + terms
                                + (suspended ? ", suspended" : "") + '}';
    }
}
