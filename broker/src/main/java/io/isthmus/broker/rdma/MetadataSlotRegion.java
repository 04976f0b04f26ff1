package io.isthmus.broker.rdma;

import io.isthmus.protocol.control.MetadataSlotDescriptor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.BitSet;

/**
 * The memory that holds every consumer's metadata slots ({@link MetadataSlotDescriptor}). Each RDMA connection owns a
 * contiguous range of {@code slotsPerRange} slots, registered for remote READ in that connection's own protection
 * domain (so it can read no other connection's range), and refreshes all its partitions with one READ of it.
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
    private final Arena arena = Arena.ofShared();
    private final MemorySegment memory;
    private final int ranges;
    private final int slotsPerRange;
    private final BitSet used;

    public MetadataSlotRegion(final int ranges, final int slotsPerRange) {
        this.ranges = ranges;
        this.slotsPerRange = slotsPerRange;
        this.used = new BitSet(ranges);
        this.memory = arena.allocate((long) ranges * slotsPerRange * MetadataSlotDescriptor.LENGTH, 4096);
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
        arena.close();
    }
}
