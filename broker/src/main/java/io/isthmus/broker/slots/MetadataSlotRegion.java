package io.isthmus.broker.slots;

import io.isthmus.protocol.control.MetadataSlotDescriptor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.BitSet;

/**
 * The memory that holds every one-sided consumer's metadata slots ({@link MetadataSlotDescriptor}). Each session owns a
 * contiguous range of {@code slotsPerRange} slots: an RDMA connection has its range registered for remote READ in its
 * own protection domain (so it can read no other connection's range) and refreshes all its partitions with one READ of
 * it; a shared-memory session loads its range in place from the broker's slot file.
 *
 * <pre>
 *   region:  | range 0: slot 0 | slot 1 | ... | range 1: slot 0 | slot 1 | ... | ...
 *            '--- slotsPerRange x 40 B ---'    '--- one connection ---'
 * </pre>
 *
 * <p>Ranges are handed out and freed on the datapath thread; slots are written by {@link PartitionSlots} from whichever
 * thread appended.
 */
public final class MetadataSlotRegion implements AutoCloseable {
    /** The arena the memory came from when this region allocated it, null when it lives in someone else's mapping. */
    private final Arena arena;

    private final MemorySegment memory;
    private final int ranges;
    private final int slotsPerRange;
    private final BitSet used;

    /** A region in memory of its own, freed on {@link #close()} (RDMA registers its ranges). */
    public MetadataSlotRegion(final int ranges, final int slotsPerRange) {
        this(Arena.ofShared(), ranges, slotsPerRange);
    }

    /**
     * A region over {@code memory}, which its caller owns (the shared-memory slot file's mapping, after its header):
     * it must hold {@code ranges x slotsPerRange} slots.
     */
    public MetadataSlotRegion(final MemorySegment memory, final int ranges, final int slotsPerRange) {
        this(null, memory, ranges, slotsPerRange);
    }

    private MetadataSlotRegion(final Arena arena, final int ranges, final int slotsPerRange) {
        this(
                arena,
                arena.allocate((long) ranges * slotsPerRange * MetadataSlotDescriptor.LENGTH, 4096),
                ranges,
                slotsPerRange);
    }

    private MetadataSlotRegion(
            final Arena arena, final MemorySegment memory, final int ranges, final int slotsPerRange) {
        final long needed = (long) ranges * slotsPerRange * MetadataSlotDescriptor.LENGTH;
        if (memory.byteSize() < needed) {
            throw new IllegalArgumentException("slot region memory too small: bytes=" + memory.byteSize() + " needed="
                    + needed + " ranges=" + ranges + " slotsPerRange=" + slotsPerRange);
        }
        this.arena = arena;
        this.memory = memory;
        this.ranges = ranges;
        this.slotsPerRange = slotsPerRange;
        this.used = new BitSet(ranges);
    }

    /** A free range, or -1 when every range is taken. */
    public int allocateRange() {
        final int range = used.nextClearBit(0);
        if (range >= ranges) {
            return -1;
        }
        used.set(range);
        return range;
    }

    /** Frees a range, zeroing its slots. */
    public void freeRange(final int range) {
        if (range < 0 || range >= ranges || !used.get(range)) {
            throw new IllegalStateException("freeing a slot range that is not allocated: range=" + range);
        }
        memory.asSlice(rangeOffset(range), (long) slotsPerRange * MetadataSlotDescriptor.LENGTH)
                .fill((byte) 0);
        used.clear(range);
    }

    public int slotsPerRange() {
        return slotsPerRange;
    }

    /** Byte offset of {@code range} in the region. */
    public long rangeOffset(final int range) {
        return (long) range * slotsPerRange * MetadataSlotDescriptor.LENGTH;
    }

    /** Byte offset of slot {@code index} of {@code range}. */
    public long slotOffset(final int range, final int index) {
        if (index < 0 || index >= slotsPerRange) {
            throw new IndexOutOfBoundsException("slot index=" + index + " slotsPerRange=" + slotsPerRange);
        }
        return rangeOffset(range) + (long) index * MetadataSlotDescriptor.LENGTH;
    }

    /** The memory of {@code range}'s slots: what its connection registers for remote READ, in its own domain. */
    public MemorySegment range(final int range) {
        return memory.asSlice(rangeOffset(range), (long) slotsPerRange * MetadataSlotDescriptor.LENGTH);
    }

    /** The local memory, for {@link PartitionSlots} to write slots into. */
    public MemorySegment memory() {
        return memory;
    }

    @Override
    public void close() {
        if (arena != null) {
            arena.close();
        }
    }
}
