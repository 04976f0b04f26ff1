package io.isthmus.broker.rdma;

import io.isthmus.protocol.control.ProduceImmediateDescriptor;
import java.lang.foreign.MemorySegment;

/**
 * Puts the writes of a shared segment back into reservation order. Each reservation through the segment's word got an
 * order (16 bits, wrapping); writes arrive in any order across writers, and the broker commits them strictly in
 * order, so a write waits here until every order before it has been committed.
 *
 * <p>A ring of {@code capacity} entries (a power of two) indexed by order: an arrival stores its writer, immediate and
 * staging slot (null for a batch the broker copied in itself), the commit loop takes them in sequence. No allocation
 * per write. Orders further ahead than the ring holds, or an order that arrives twice, are protocol violations the
 * caller answers by revoking access. Confined to the datapath thread.
 */
final class ReservationSequencer {
    private static final int ORDERS = ProduceImmediateDescriptor.ORDER_MASK + 1;

    private final Object[] writers;
    private final int[] immediates;
    private final MemorySegment[] staged;
    private final int mask;
    private int nextOrder;
    private int waiting;

    /** @param capacity most orders that can be outstanding at once; rounded up to a power of two, at most 2^15 */
    ReservationSequencer(final int capacity) {
        if (capacity < 1 || capacity > ORDERS / 2) {
            throw new IllegalArgumentException("sequencer capacity must be in [1, 32768]: " + capacity);
        }
        final int size = Integer.highestOneBit(capacity);
        this.writers = new Object[size < capacity ? size << 1 : size];
        this.immediates = new int[writers.length];
        this.staged = new MemorySegment[writers.length];
        this.mask = writers.length - 1;
    }

    /** The order the next commit must have. */
    int nextOrder() {
        return nextOrder;
    }

    /** How far {@code order} is ahead of the next one to commit (0 for the next one), in wrapping order space. */
    int distance(final int order) {
        return (order - nextOrder) & ProduceImmediateDescriptor.ORDER_MASK;
    }

    /**
     * Records that the write of {@code order} arrived.
     *
     * @return false if the order is outside the window or already arrived (a protocol violation)
     */
    boolean arrive(final int order, final Object writer, final int immediate, final MemorySegment stagedBatch) {
        if (distance(order) >= writers.length) {
            return false;
        }
        final int slot = order & mask;
        if (writers[slot] != null) {
            return false;
        }
        writers[slot] = writer;
        immediates[slot] = immediate;
        staged[slot] = stagedBatch;
        waiting++;
        return true;
    }

    /** Whether the write of the next order has arrived. */
    boolean nextArrived() {
        return writers[nextOrder & mask] != null;
    }

    /** The writer of the next order (null if it has not arrived). */
    Object nextWriter() {
        return writers[nextOrder & mask];
    }

    /** The immediate of the next order's write. */
    int nextImmediate() {
        return immediates[nextOrder & mask];
    }

    /** The staging slot holding the next order's batch; null where the broker put it at the tail itself. */
    MemorySegment nextStaged() {
        return staged[nextOrder & mask];
    }

    /** Moves past the next order (committed, or given up). */
    void advance() {
        final int slot = nextOrder & mask;
        if (writers[slot] != null) {
            writers[slot] = null;
            staged[slot] = null;
            waiting--;
        }
        nextOrder = ProduceImmediateDescriptor.nextOrder(nextOrder);
    }

    /** Writes arrived and not committed. */
    int waiting() {
        return waiting;
    }

    /** Gives every waiting write, in order, to {@code action} and forgets them. */
    void drainWaiting(final WaitingWrite action) {
        for (int distance = 0; waiting > 0 && distance < writers.length; distance++) {
            final int slot = (nextOrder + distance) & mask;
            final Object writer = writers[slot];
            if (writer != null) {
                writers[slot] = null;
                staged[slot] = null;
                waiting--;
                action.accept(writer, immediates[slot]);
            }
        }
    }

    /** A write handed out by {@link #drainWaiting}. */
    @FunctionalInterface
    interface WaitingWrite {
        void accept(Object writer, int immediate);
    }
}
