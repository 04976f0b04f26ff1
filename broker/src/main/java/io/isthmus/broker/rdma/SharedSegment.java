package io.isthmus.broker.rdma;

import io.isthmus.broker.log.SegmentLease;
import java.util.ArrayList;
import java.util.List;

/**
 * One segment under shared produce: a lease on its mapping, its reservation word, the grants of the producers writing
 * it (each with a lease on the segment and its own registration of the word), the committed tail and the {@link
 * ReservationSequencer} that puts arriving writes back into reservation order. Confined to the datapath thread.
 *
 * <pre>
 *   LIVE ──(every order before the overflowed one committed)──▶ ROLLED    (the log segment is sealed)
 *     │
 *     └──(an order not written within the timeout, or a bad write)──▶ REVOKED ──(one more timeout)──▶ RETIRED
 *                                                                     word closed,         word rkeys gone,
 *                                                                     waiting writes       unfilled space zeroed
 *                                                                     answered REVOKED
 * </pre>
 *
 * <p>The word is freed only when no grant refers to the segment any more: a producer that still holds it may add to it
 * (and learn that it overflowed), so it must never be reused for another segment while that can happen.
 */
final class SharedSegment {
    enum State {
        LIVE,
        ROLLED,
        REVOKED,
        RETIRED
    }

    final SharedProduce owner;
    /** Keeps the mapping the producers write into; its holders register it in their own protection domains. */
    final SegmentLease lease;

    final int word;
    final ReservationSequencer sequencer;
    /** Access requests and TCP appends waiting for the roll this segment is heading for. */
    final List<Runnable> waitingForRoll = new ArrayList<>();

    State state = State.LIVE;
    long tail;
    /** The first order whose reservation overflowed the segment (every later one did too), or -1. */
    int overflowedOrder = -1;
    /** When the next order was first seen reserved and not written (0: not stalled). */
    long stalledSinceNanos;
    /** Where reservations had got to when the word was closed (REVOKED): the end of what may have been written. */
    long reservedEnd;

    long graceEndNanos;
    /** The grants that refer to this segment. */
    final List<ProduceGrant> holders = new ArrayList<>(4);

    /** Every holder's access was deregistered and the lease given back: no write can land any more. */
    boolean accessReleased;

    boolean wordFreed;

    SharedSegment(
            final SharedProduce owner,
            final SegmentLease lease,
            final int word,
            final ReservationSequencer sequencer,
            final long tail) {
        this.owner = owner;
        this.lease = lease;
        this.word = word;
        this.sequencer = sequencer;
        this.tail = tail;
    }

    int segmentId() {
        return lease.segment().id();
    }

    long capacity() {
        return lease.segment().capacity();
    }

    /** A producer says its reservation {@code order} overflowed: the segment ends before the earliest such order. */
    void overflowed(final int order) {
        final int distance = sequencer.distance(order);
        if (distance > Short.MAX_VALUE) {
            return; // behind the committed orders: not a reservation that can still be outstanding
        }
        if (overflowedOrder < 0 || distance < sequencer.distance(overflowedOrder)) {
            overflowedOrder = order;
        }
    }

    /** Whether every order before the overflowed one is committed: time to roll. */
    boolean readyToRoll() {
        return overflowedOrder >= 0 && sequencer.nextOrder() == overflowedOrder;
    }

    @Override
    public String toString() {
        return "SharedSegment{partition=" + owner.partition.topicPartition() + ", segmentId=" + segmentId()
                + ", state=" + state + ", tail=" + tail + ", nextOrder=" + sequencer.nextOrder() + ", waiting="
                + sequencer.waiting() + ", overflowedOrder=" + overflowedOrder + ", holders=" + holders.size() + '}';
    }
}
