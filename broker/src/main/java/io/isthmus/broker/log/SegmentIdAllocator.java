package io.isthmus.broker.log;

import java.util.BitSet;
import org.apache.kafka.common.errors.KafkaStorageException;

/**
 * Hands out the 16-bit segment ids that RDMA immediates carry, unique among the segments alive in one broker. An id
 * is returned when its segment is unmapped, not when it is deleted, so a late completion naming a deleted segment can
 * never be mistaken for a newer one while the old mapping still exists.
 *
 * <p>So one broker maps at most 65,536 segments at once (and the kernel's {@code vm.max_map_count}, three mappings per
 * segment, usually binds first). Running out is not fatal: the roll that needed an id fails with a retriable {@link
 * KafkaStorageException}, the partition keeps appending to its active segment where there is room, and the ids come
 * back as retention deletes segments. {@code max.broker.partitions} keeps partitions alone from taking them all.
 */
public final class SegmentIdAllocator {
    public static final int MAX_IDS = 1 << 16;

    private final int maxIds;
    private final BitSet used;
    private int next;

    public SegmentIdAllocator() {
        this(MAX_IDS);
    }

    /** An allocator of the ids below {@code maxIds} (at most {@link #MAX_IDS}). */
    public SegmentIdAllocator(final int maxIds) {
        if (maxIds < 1 || maxIds > MAX_IDS) {
            throw new IllegalArgumentException("maxIds must be within 1.." + MAX_IDS + ": " + maxIds);
        }
        this.maxIds = maxIds;
        this.used = new BitSet(maxIds);
    }

    /**
     * A free id.
     *
     * @throws KafkaStorageException when every id is taken by a live segment
     */
    public synchronized int allocate() {
        int candidate = used.nextClearBit(next);
        if (candidate >= maxIds) {
            candidate = used.nextClearBit(0);
        }
        if (candidate >= maxIds) {
            throw new KafkaStorageException("no free segment id: this broker maps " + used.cardinality()
                    + " segments, the most it can (" + maxIds + "); ids come back as retention deletes segments");
        }
        used.set(candidate);
        next = candidate + 1;
        return candidate;
    }

    public synchronized void release(final int id) {
        if (id < 0 || id >= maxIds || !used.get(id)) {
            throw new IllegalStateException("releasing a segment id that is not allocated: id=" + id);
        }
        used.clear(id);
    }

    public synchronized int allocatedCount() {
        return used.cardinality();
    }
}
