package io.isthmus.broker.log;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Layout of one entry of a segment's sparse offset index ({@code .index} file), big-endian like Kafka's.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |        Relative Offset (int32, base offset - segment base)    |  0
 *  +---------------------------------------------------------------+
 *  |        Position (int32, byte position of the batch)           |  4
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>An entry names the <em>base</em> offset of the batch that starts at the position (Kafka indexes a batch's last
 * offset because compaction leaves holes; this log never compacts, and with base offsets a lookup lands on the batch
 * that holds the target whenever that batch is indexed). The first batch of a segment is never indexed: a lookup
 * below the first entry starts at position 0. Entries are strictly increasing in both fields.
 */
public final class OffsetIndexDescriptor {
    public static final int RELATIVE_OFFSET_OFFSET = 0;
    public static final int POSITION_OFFSET = 4;
    public static final int ENTRY_LENGTH = 8;

    static final ValueLayout.OfInt INT32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private OffsetIndexDescriptor() {}

    /** Byte offset of entry {@code index} in the file. */
    public static long entryOffset(final int index) {
        return (long) index * ENTRY_LENGTH;
    }

    public static int relativeOffset(final MemorySegment entries, final int index) {
        return entries.get(INT32, entryOffset(index) + RELATIVE_OFFSET_OFFSET);
    }

    public static int position(final MemorySegment entries, final int index) {
        return entries.get(INT32, entryOffset(index) + POSITION_OFFSET);
    }

    public static void put(final MemorySegment entries, final int index, final int relativeOffset, final int position) {
        entries.set(INT32, entryOffset(index) + RELATIVE_OFFSET_OFFSET, relativeOffset);
        entries.set(INT32, entryOffset(index) + POSITION_OFFSET, position);
    }
}
