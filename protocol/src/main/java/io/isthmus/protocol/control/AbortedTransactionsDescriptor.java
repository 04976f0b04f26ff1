package io.isthmus.protocol.control;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A partition's aborted transactions in RDMA-readable memory (Kafka's {@code .txnindex}, one-sided): what a {@code
 * read_committed} consumer needs to drop aborted batches without asking the broker. An append-only array: entry {@code
 * i} (counted from the partition's first entry ever, the array's {@code base}) lies at {@code (i - base) * }{@value
 * #ENTRY_LENGTH}, and is never written again once its index is below the {@code abortedCount} of a published metadata
 * slot, so a READ of it cannot be torn. A full array is replaced by a larger one (a new registration, given out with
 * the next consume access); the consumer asks again when a slot's count passes {@code base + capacity}.
 *
 * <pre>
 *   0                  8                  16                 24
 *   +------------------+------------------+------------------+
 *   | producerId int64 | firstOffset int64| lastOffset int64 |   lastOffset: the ABORT marker's offset
 *   +------------------+------------------+------------------+
 * </pre>
 *
 * <p>Little-endian, 8-byte aligned, like the metadata slots.
 */
public final class AbortedTransactionsDescriptor {
    public static final int PRODUCER_ID_OFFSET = 0;
    public static final int FIRST_OFFSET_OFFSET = 8;
    public static final int LAST_OFFSET_OFFSET = 16;
    public static final int ENTRY_LENGTH = 24;

    private static final ValueLayout.OfLong INT64 = ValueLayout.JAVA_LONG.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong INT64_UNALIGNED =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private AbortedTransactionsDescriptor() {}

    /** Broker side: writes the entry at array position {@code position} (entry index minus base). */
    public static void write(
            final MemorySegment array,
            final long position,
            final long producerId,
            final long firstOffset,
            final long lastOffset) {
        final long at = position * ENTRY_LENGTH;
        array.set(INT64, at + PRODUCER_ID_OFFSET, producerId);
        array.set(INT64, at + FIRST_OFFSET_OFFSET, firstOffset);
        array.set(INT64, at + LAST_OFFSET_OFFSET, lastOffset);
    }

    // Reader side: any alignment.

    public static long producerId(final MemorySegment entries, final long position) {
        return entries.get(INT64_UNALIGNED, position * ENTRY_LENGTH + PRODUCER_ID_OFFSET);
    }

    public static long firstOffset(final MemorySegment entries, final long position) {
        return entries.get(INT64_UNALIGNED, position * ENTRY_LENGTH + FIRST_OFFSET_OFFSET);
    }

    public static long lastOffset(final MemorySegment entries, final long position) {
        return entries.get(INT64_UNALIGNED, position * ENTRY_LENGTH + LAST_OFFSET_OFFSET);
    }
}
