package io.isthmus.protocol.control;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The layout of a broker's shared-memory slot file ({@link ShmDirectoryLayout#SLOT_FILE}): one header page, then the
 * metadata slots ({@link MetadataSlotDescriptor}) of every shared-memory session, a contiguous range of {@code
 * slotsPerRange} slots each. Clients map it read-only and load the slots in place; the broker publishes them with
 * release stores, as it writes the slots RDMA consumers READ.
 *
 * <pre>
 *   0        8            16       24              28       32                               4096
 *   +--------+------------+--------+---------------+--------+--------------------------------+----------------------
 *   | magic  | generation | state  | slotsPerRange | ranges | (zeros)                        | range 0 | range 1 | ...
 *   | int64  | int64      | int64  | int32         | int32  |                                | slotsPerRange x 40 B
 *   +--------+------------+--------+---------------+--------+--------------------------------+----------------------
 * </pre>
 *
 * <ul>
 *   <li><b>generation</b>: random, new at each broker start; SHM_ATTACH answers it, and a client checks the file it
 *       mapped carries it.
 *   <li><b>state</b>: {@link #OPEN} while the broker that made the file serves it, {@link #CLOSED} once it stopped or
 *       its successor started (the successor marks the old file before replacing it, so even a broker killed with
 *       {@code kill -9} leaves no client waiting on slots nobody updates). Stored last, with release semantics; a
 *       client loads it with acquire semantics and attaches again when it is not OPEN.
 * </ul>
 *
 * <p>Little-endian, slots 8-byte aligned.
 */
public final class ShmSlotFileDescriptor {
    public static final long MAGIC = 0x6973_7468_6d73_6c74L; // "isthmslt"
    public static final int MAGIC_OFFSET = 0;
    public static final int GENERATION_OFFSET = 8;
    public static final int STATE_OFFSET = 16;
    public static final int SLOTS_PER_RANGE_OFFSET = 24;
    public static final int RANGES_OFFSET = 28;
    public static final int HEADER_LENGTH = 4096;

    public static final long OPEN = 1;
    public static final long CLOSED = 2;

    private static final ValueLayout.OfLong INT64 = ValueLayout.JAVA_LONG.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT32 = ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle STATE = INT64.varHandle();

    private ShmSlotFileDescriptor() {}

    /** Bytes of a file with {@code ranges} ranges of {@code slotsPerRange} slots. */
    public static long fileLength(final int ranges, final int slotsPerRange) {
        return HEADER_LENGTH + (long) ranges * slotsPerRange * MetadataSlotDescriptor.LENGTH;
    }

    /** Byte offset of {@code range}'s first slot in the file. */
    public static long rangeOffset(final int range, final int slotsPerRange) {
        return HEADER_LENGTH + (long) range * slotsPerRange * MetadataSlotDescriptor.LENGTH;
    }

    /** Broker side: writes the header of a new file, the state ({@link #OPEN}) last with release semantics. */
    public static void initialise(
            final MemorySegment file, final long generation, final int slotsPerRange, final int ranges) {
        file.set(INT64, MAGIC_OFFSET, MAGIC);
        file.set(INT64, GENERATION_OFFSET, generation);
        file.set(INT32, SLOTS_PER_RANGE_OFFSET, slotsPerRange);
        file.set(INT32, RANGES_OFFSET, ranges);
        STATE.setRelease(file, (long) STATE_OFFSET, OPEN);
    }

    /** Broker side: marks the file closed (its broker stopped, or a successor replaces it). */
    public static void close(final MemorySegment file) {
        STATE.setRelease(file, (long) STATE_OFFSET, CLOSED);
    }

    public static long magic(final MemorySegment file) {
        return file.get(INT64, MAGIC_OFFSET);
    }

    public static long generation(final MemorySegment file) {
        return file.get(INT64, GENERATION_OFFSET);
    }

    /** The state, loaded with acquire semantics. */
    public static long state(final MemorySegment file) {
        return (long) STATE.getAcquire(file, (long) STATE_OFFSET);
    }

    public static int slotsPerRange(final MemorySegment file) {
        return file.get(INT32, SLOTS_PER_RANGE_OFFSET);
    }

    public static int ranges(final MemorySegment file) {
        return file.get(INT32, RANGES_OFFSET);
    }
}
