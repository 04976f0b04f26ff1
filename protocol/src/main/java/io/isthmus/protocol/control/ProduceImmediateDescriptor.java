package io.isthmus.protocol.control;

/**
 * The 32-bit immediate of a produce WRITE WITH IMM (KafkaDirect figure 4). A WRITE WITH IMM tells the broker only
 * the immediate, not where the bytes went, so the immediate names the segment and the write's place in the order of
 * that producer's writes to it; the broker knows the address (its committed tail) and reads the batch length from the
 * batch header there, never from the completion's byte count (Soft-RoCE reports 0).
 *
 * <pre>
 *   31                 16 15                  0
 *   +--------------------+--------------------+
 *   | segment id (16)    | order (16)         |
 *   +--------------------+--------------------+
 * </pre>
 *
 * <p>Orders count up from the {@code firstOrder} of the access grant and wrap at 2^16. Exclusive producers use them to
 * let the broker detect a lost or reordered completion; shared producers take them from the reservation word ({@link
 * SharedProduceWordDescriptor}).
 */
public final class ProduceImmediateDescriptor {
    public static final int SEGMENT_ID_SHIFT = 16;
    public static final int ORDER_MASK = 0xFFFF;

    private ProduceImmediateDescriptor() {}

    public static int immediate(final int segmentId, final int order) {
        return (segmentId & 0xFFFF) << SEGMENT_ID_SHIFT | (order & ORDER_MASK);
    }

    public static int segmentId(final int immediate) {
        return immediate >>> SEGMENT_ID_SHIFT;
    }

    public static int order(final int immediate) {
        return immediate & ORDER_MASK;
    }

    /** The order after {@code order}, wrapping at 2^16. */
    public static int nextOrder(final int order) {
        return (order + 1) & ORDER_MASK;
    }
}
