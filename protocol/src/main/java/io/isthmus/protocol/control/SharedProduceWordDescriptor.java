package io.isthmus.protocol.control;

import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The 64-bit reservation word of shared RDMA produce (KafkaDirect section 4.2.2, "shared access"): one per segment in
 * broker memory, advanced by producers with a remote FETCH_AND_ADD of {@link #reservation(int) reservation(size)}. The
 * old value returned tells the producer its order and where in the segment its batch will go.
 *
 * <pre>
 *   63             48 47                                              0
 *   +----------------+------------------------------------------------+
 *   | order (16)     | position (48)                                  |
 *   +----------------+------------------------------------------------+
 * </pre>
 *
 * <p>The position has 48 bits although a segment is at most 2 GiB: FETCH_AND_ADD always succeeds, so reservations
 * past the end keep counting and the producer sees the overflow (position + size > capacity) instead of wrapping into
 * committed data. The order wraps at 2^16 and is what the producer puts in its {@link ProduceImmediateDescriptor
 * immediate}, so the broker commits reservations strictly in order. Little-endian (host order, as NIC atomics use).
 */
public final class SharedProduceWordDescriptor {
    public static final int ORDER_SHIFT = 48;
    public static final long POSITION_MASK = (1L << ORDER_SHIFT) - 1;
    public static final int LENGTH = 8;
    /** The word as it lies in memory: the broker's words and the producer's FETCH_AND_ADD result. */
    public static final ValueLayout.OfLong INT64 = ValueLayout.JAVA_LONG.withOrder(ByteOrder.LITTLE_ENDIAN);

    private SharedProduceWordDescriptor() {}

    /** The word for {@code order} and {@code position}. */
    public static long word(final int order, final long position) {
        if (position < 0 || position > POSITION_MASK) {
            throw new IllegalArgumentException("position out of range: position=" + position);
        }
        return ((long) (order & 0xFFFF) << ORDER_SHIFT) | position;
    }

    /** What one reservation of {@code size} bytes adds: one order and {@code size} bytes. */
    public static long reservation(final int size) {
        if (size <= 0) {
            throw new IllegalArgumentException("reservation size must be positive: size=" + size);
        }
        return (1L << ORDER_SHIFT) + size;
    }

    public static int order(final long word) {
        return (int) (word >>> ORDER_SHIFT);
    }

    public static long position(final long word) {
        return word & POSITION_MASK;
    }

    /** Whether a reservation of {@code size} at the position of {@code oldWord} fits a segment of {@code capacity}. */
    public static boolean fits(final long oldWord, final int size, final long capacity) {
        return position(oldWord) + size <= capacity;
    }
}
