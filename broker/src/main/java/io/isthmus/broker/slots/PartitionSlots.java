package io.isthmus.broker.slots;

import io.isthmus.broker.log.LogSegment;
import io.isthmus.protocol.control.MetadataSlotDescriptor;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.function.ToLongFunction;

/**
 * The metadata slots that describe segments of one partition, kept current after every append: registered as the
 * partition's append observer, {@link #run()} republishes each slot from its segment's readable end (its committed
 * end, or in a replicated partition the end of what every in-sync replica holds, so the observer also runs when the
 * high watermark moves), with the
 * partition's last stable offset and the count of its {@link AbortedTransactionArray aborted transactions}. Each slot
 * names one segment; a consumer that moves on to the next segment gets the same slot reassigned.
 *
 * <p>Runs on whichever thread appended (a TCP request handler, the RDMA datapath, a shared-memory commit); the monitor serialises them, and
 * because each publication reads the segment's current state, slots never go backwards.
 */
public final class PartitionSlots implements Runnable {
    private final String partition;
    private final MemorySegment slots;
    private final ToLongFunction<LogSegment> readablePosition;
    private final LongSupplier highWatermark;
    private final LongSupplier lastStableOffset;
    private final AbortedTransactionArray aborted;
    private final List<Assignment> assignments = new ArrayList<>();

    /**
     * @param slots the memory the slots live in (the RDMA-registered slot region, or the shared-memory slot file)
     * @param readablePosition where a reader of a segment may read up to (the partition's {@code readablePosition})
     * @param highWatermark the partition's high watermark, published beside each slot's readable position
     * @param lastStableOffset the partition's last stable offset, likewise
     * @param aborted the partition's aborted transactions, brought up to date before each publication
     */
    public PartitionSlots(
            final String partition,
            final MemorySegment slots,
            final ToLongFunction<LogSegment> readablePosition,
            final LongSupplier highWatermark,
            final LongSupplier lastStableOffset,
            final AbortedTransactionArray aborted) {
        this.partition = partition;
        this.slots = slots;
        this.readablePosition = readablePosition;
        this.highWatermark = highWatermark;
        this.lastStableOffset = lastStableOffset;
        this.aborted = aborted;
    }

    /** Points the slot at {@code slotOffset} to {@code segment} and publishes it at once. */
    public synchronized void assign(final long slotOffset, final LogSegment segment) {
        Assignment assignment = find(slotOffset);
        if (assignment == null) {
            assignment = new Assignment(slotOffset);
            assignments.add(assignment);
        }
        assignment.segment = segment;
        publish(assignment, stableState());
    }

    /** Stops updating the slot and zeroes it (the consumer released it). */
    public synchronized void unassign(final long slotOffset) {
        if (remove(slotOffset) != null) {
            MetadataSlotDescriptor.clear(slots, slotOffset);
        }
    }

    /**
     * Stops updating the slot and marks it revoked: its segment's registration is gone (retention deleted it, or the
     * partition was deleted), so the consumer must ask again over TCP.
     */
    public synchronized void revoke(final long slotOffset) {
        final Assignment assignment = remove(slotOffset);
        if (assignment != null) {
            MetadataSlotDescriptor.publish(
                    slots,
                    slotOffset,
                    MetadataSlotDescriptor.readableWord(0, true, true),
                    highWatermark.getAsLong(),
                    assignment.segment.id(),
                    lastStableOffset.getAsLong(),
                    aborted.count());
        }
    }

    public synchronized boolean isEmpty() {
        return assignments.isEmpty();
    }

    public synchronized int size() {
        return assignments.size();
    }

    /** Republishes every slot from its segment (the append observer). */
    @Override
    public synchronized void run() {
        if (assignments.isEmpty()) {
            return;
        }
        final long stable = stableState();
        for (int i = 0; i < assignments.size(); i++) {
            publish(assignments.get(i), stable);
        }
    }

    /** The array's current registration, for an access answer. */
    public synchronized AbortedTransactionArray aborted() {
        return aborted;
    }

    /**
     * The last stable offset to publish, after bringing the aborted transactions up to date: read first, so every ABORT
     * marker below it (indexed before the end offset that let the LSO pass it) is in the array the slots count.
     */
    private long stableState() {
        final long stable = lastStableOffset.getAsLong();
        aborted.sync();
        return stable;
    }

    private void publish(final Assignment assignment, final long stable) {
        final LogSegment segment = assignment.segment;
        // Sealed first: once a segment is seen sealed, the committed end read after it is final. The readable end is
        // final only once it reaches that: a reader moves on to the next segment when it sees SEALED.
        final boolean sealed = segment.isSealed();
        final long end = segment.committedPosition();
        final long position = Math.min(readablePosition.applyAsLong(segment), end);
        MetadataSlotDescriptor.publish(
                slots,
                assignment.slotOffset,
                MetadataSlotDescriptor.readableWord(position, sealed && position == end, false),
                highWatermark.getAsLong(),
                segment.id(),
                stable,
                aborted.count());
    }

    /** Frees the aborted-transaction arrays (the partition's last one-sided consumer left). */
    public synchronized void close() {
        aborted.close();
    }

    private Assignment find(final long slotOffset) {
        for (int i = 0; i < assignments.size(); i++) {
            if (assignments.get(i).slotOffset == slotOffset) {
                return assignments.get(i);
            }
        }
        return null;
    }

    private Assignment remove(final long slotOffset) {
        final Assignment assignment = find(slotOffset);
        if (assignment != null) {
            assignments.remove(assignment);
        }
        return assignment;
    }

    @Override
    public String toString() {
        return "PartitionSlots{partition=" + partition + ", slots=" + size() + '}';
    }

    private static final class Assignment {
        final long slotOffset;
        LogSegment segment;

        Assignment(final long slotOffset) {
            this.slotOffset = slotOffset;
        }
    }
}
