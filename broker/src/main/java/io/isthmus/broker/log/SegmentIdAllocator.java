package io.isthmus.broker.log;

import java.util.BitSet;

/**
 * Hands out the 16-bit segment ids that RDMA immediates carry, unique among the segments alive in one broker. An id
 * is returned when its segment is unmapped, not when it is deleted, so a late completion naming a deleted segment can
 * never be mistaken for a newer one while the old mapping still exists.
 */
public final class SegmentIdAllocator {
    public static final int MAX_IDS = 1 << 16;

    private final BitSet used = new BitSet(MAX_IDS);
    private int next;

    /** A free id; throws when all 65536 are taken. */
    public synchronized int allocate() {
        int candidate = used.nextClearBit(next);
        if (candidate >= MAX_IDS) {
            candidate = used.nextClearBit(0);
        }
        if (candidate >= MAX_IDS) {
            throw new IllegalStateException(
                    "no free segment id: liveSegments=" + used.cardinality() + " max=" + MAX_IDS);
        }
        used.set(candidate);
        next = candidate + 1;
        return candidate;
    }

    public synchronized void release(final int id) {
        if (id < 0 || id >= MAX_IDS || !used.get(id)) {
            throw new IllegalStateException("releasing a segment id that is not allocated: id=" + id);
        }
        used.clear(id);
    }

    public synchronized int allocatedCount() {
        return used.cardinality();
    }
}
