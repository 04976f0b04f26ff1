package io.isthmus.broker.log;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Layout of one entry of a segment's sparse time index ({@code .timeindex} file), big-endian like Kafka's.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |          Timestamp (int64, largest max timestamp so far)      |  0
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |  Relative Offset (int32, base offset of the batch it came with)|  8
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>An entry {@code (t, o)} promises: every batch of the segment before the batch with base offset {@code o} has a
 * max timestamp of at most {@code t}. Timestamps are strictly increasing (an entry is only added when the largest
 * timestamp grows); relative offsets are non-decreasing.
 */
public final class TimeIndexDescriptor {
    public static final int TIMESTAMP_OFFSET = 0;
    public static final int RELATIVE_OFFSET_OFFSET = 8;
    public static final int ENTRY_LENGTH = 12;

    static final ValueLayout.OfLong INT64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfInt INT32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private TimeIndexDescriptor() {}

    /** Byte offset of entry {@code index} in the file. */
    public static long entryOffset(final int index) {
        return (long) index * ENTRY_LENGTH;
    }

    public static long timestamp(final MemorySegment entries, final int index) {
        return entries.get(INT64, entryOffset(index) + TIMESTAMP_OFFSET);
    }

    public static int relativeOffset(final MemorySegment entries, final int index) {
        return entries.get(INT32, entryOffset(index) + RELATIVE_OFFSET_OFFSET);
    }

    public static void put(
            final MemorySegment entries, final int index, final long timestamp, final int relativeOffset) {
        entries.set(INT64, entryOffset(index) + TIMESTAMP_OFFSET, timestamp);
        entries.set(INT32, entryOffset(index) + RELATIVE_OFFSET_OFFSET, relativeOffset);
    }
}
