package io.isthmus.protocol.control;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * One RDMA-readable metadata slot (KafkaDirect section 4.4.2): what a consumer needs to know about the segment it reads,
 * kept current by the broker after every commit. A consumer's slots are contiguous, so one RDMA READ of its range
 * refreshes every partition it reads, and the broker's CPU does nothing per poll.
 *
 * <pre>
 *   0                                   8                  16          20          24                 32              40
 *   +-----------------------------------+------------------+-----------+-----------+------------------+---------------+
 *   | readable word                     | highWatermark    | segmentId | reserved  | lastStableOffset | abortedCount  |
 *   | bit 63 SEALED, bit 62 REVOKED,    | int64            | int32     | int32 (0) | int64            | int64         |
 *   | bits 0..47 readable position      |                  |           |           |                  |               |
 *   +-----------------------------------+------------------+-----------+-----------+------------------+---------------+
 * </pre>
 *
 * <ul>
 *   <li><b>readable word</b>: a consumer reads the segment below this position and nowhere else. It is the one word a
 *       consumer acts on, so it carries the flags too: SEALED (move to the next segment once read up to here), REVOKED
 *       (the broker withdrew the registration, e.g. retention deleted the segment: ask again over TCP). The broker
 *       stores it last, with release semantics, after the other fields.
 *   <li><b>highWatermark</b>: the partition's high watermark when the slot was published, what a consumer's lag is
 *       measured against, as a fetch response's high watermark is over TCP. Lag, not safety: a READ is not atomic
 *       across words, so the consumer takes record offsets from the batches themselves.
 *   <li><b>segmentId</b>: the segment the slot describes; a consumer ignores a slot that names another one (the slot
 *       was given to the partition's next segment since its last access answer).
 *   <li><b>lastStableOffset</b>: the partition's last stable offset when the slot was published; a {@code
 *       read_committed} consumer hands out no batch at or above it. Published before the readable word, so a consumer
 *       that sees a readable position also sees an LSO at least as new as the batches below it need.
 *   <li><b>abortedCount</b>: how many entries of the partition's {@link AbortedTransactionsDescriptor aborted
 *       transaction array} are written; entries below it are final (written before this slot was published), so a
 *       READ of them issued after this slot's READ cannot be torn.
 * </ul>
 *
 * <p>Little-endian and 8-byte aligned: the broker writes each word with one aligned store. 40 bytes, so one READ of a
 * consumer's range carries little.
 */
public final class MetadataSlotDescriptor {
    public static final int READABLE_OFFSET = 0;
    public static final int HIGH_WATERMARK_OFFSET = 8;
    public static final int SEGMENT_ID_OFFSET = 16;
    public static final int RESERVED_OFFSET = 20;
    public static final int LAST_STABLE_OFFSET_OFFSET = 24;
    public static final int ABORTED_COUNT_OFFSET = 32;
    public static final int LENGTH = 40;

    public static final long SEALED_FLAG = 1L << 63;
    public static final long REVOKED_FLAG = 1L << 62;
    public static final long POSITION_MASK = (1L << 48) - 1;

    private static final ValueLayout.OfLong INT64 = ValueLayout.JAVA_LONG.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT32 = ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong INT64_UNALIGNED =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT32_UNALIGNED =
            ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle READABLE = INT64.varHandle();

    private MetadataSlotDescriptor() {}

    /** The readable word for {@code position} and the flags. */
    public static long readableWord(final long position, final boolean sealed, final boolean revoked) {
        if (position < 0 || position > POSITION_MASK) {
            throw new IllegalArgumentException("position out of range: position=" + position);
        }
        return position | (sealed ? SEALED_FLAG : 0) | (revoked ? REVOKED_FLAG : 0);
    }

    public static long position(final long readableWord) {
        return readableWord & POSITION_MASK;
    }

    public static boolean isSealed(final long readableWord) {
        return (readableWord & SEALED_FLAG) != 0;
    }

    public static boolean isRevoked(final long readableWord) {
        return (readableWord & REVOKED_FLAG) != 0;
    }

    /**
     * Broker side: writes the whole slot at {@code offset} (8-byte aligned), the readable word last with release
     * semantics.
     */
    public static void publish(
            final MemorySegment slots,
            final long offset,
            final long readableWord,
            final long highWatermark,
            final int segmentId,
            final long lastStableOffset,
            final long abortedCount) {
        slots.set(INT64, offset + HIGH_WATERMARK_OFFSET, highWatermark);
        slots.set(INT32, offset + SEGMENT_ID_OFFSET, segmentId);
        slots.set(INT32, offset + RESERVED_OFFSET, 0);
        // The count before the LSO, each with release semantics: a reader that loads the LSO, then the count, with
        // acquire semantics sees a count at least as new as the LSO needs, and the entries below it.
        READABLE.setRelease(slots, offset + ABORTED_COUNT_OFFSET, abortedCount);
        READABLE.setRelease(slots, offset + LAST_STABLE_OFFSET_OFFSET, lastStableOffset);
        READABLE.setRelease(slots, offset + READABLE_OFFSET, readableWord);
    }

    /** Broker side: zeroes a freed slot (readable word first, so nobody trusts the rest). */
    public static void clear(final MemorySegment slots, final long offset) {
        READABLE.setRelease(slots, offset + READABLE_OFFSET, 0L);
        slots.asSlice(offset + HIGH_WATERMARK_OFFSET, LENGTH - HIGH_WATERMARK_OFFSET)
                .fill((byte) 0);
    }

    // Reader side: any alignment (a consumer's READ target need not be aligned).

    public static long readable(final MemorySegment slots, final long offset) {
        return slots.get(INT64_UNALIGNED, offset + READABLE_OFFSET);
    }

    /**
     * The readable word of a slot read in place in the broker's memory (a shared-memory consumer maps the slot file):
     * loaded with acquire semantics, so the fields the broker stored before it are seen, as a READ sees them.
     */
    public static long readableAcquire(final MemorySegment slots, final long offset) {
        return (long) READABLE.getAcquire(slots, offset + READABLE_OFFSET);
    }

    /**
     * The last stable offset of a slot read in place, with acquire semantics: load it after {@link #readableAcquire}
     * and before {@link #abortedCountAcquire}, so the count covers every aborted transaction below it.
     */
    public static long lastStableOffsetAcquire(final MemorySegment slots, final long offset) {
        return (long) READABLE.getAcquire(slots, offset + LAST_STABLE_OFFSET_OFFSET);
    }

    /** The aborted-transaction count of a slot read in place, with acquire semantics (entries below it are visible). */
    public static long abortedCountAcquire(final MemorySegment slots, final long offset) {
        return (long) READABLE.getAcquire(slots, offset + ABORTED_COUNT_OFFSET);
    }

    public static long highWatermark(final MemorySegment slots, final long offset) {
        return slots.get(INT64_UNALIGNED, offset + HIGH_WATERMARK_OFFSET);
    }

    public static int segmentId(final MemorySegment slots, final long offset) {
        return slots.get(INT32_UNALIGNED, offset + SEGMENT_ID_OFFSET);
    }

    public static long lastStableOffset(final MemorySegment slots, final long offset) {
        return slots.get(INT64_UNALIGNED, offset + LAST_STABLE_OFFSET_OFFSET);
    }

    public static long abortedCount(final MemorySegment slots, final long offset) {
        return slots.get(INT64_UNALIGNED, offset + ABORTED_COUNT_OFFSET);
    }
}
