package io.isthmus.protocol.control;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The broker's acknowledgement of one produce WRITE WITH IMM: a 16-byte SEND (inline) into one of the receives the
 * client posted ({@link RdmaConnectRequest#ackCredits()}). Each ack gives the producer its credit back.
 *
 * <pre>
 *   0                         8                  12          14          16
 *   +-------------------------+------------------+-----------+-----------+
 *   | baseOffset              | immediate        | errorCode | reserved  |
 *   | int64 (-1 on error)     | int32 (echoed)   | int16     | int16     |
 *   +-------------------------+------------------+-----------+-----------+
 * </pre>
 *
 * <p>Little-endian. A non-zero {@link ControlErrorCodes error code} means the write was rejected, nothing of it was
 * committed, and the producer's access is revoked.
 */
public final class ProduceAckDescriptor {
    public static final int BASE_OFFSET_OFFSET = 0;
    public static final int IMMEDIATE_OFFSET = 8;
    public static final int ERROR_CODE_OFFSET = 12;
    public static final int LENGTH = 16;

    private static final ValueLayout.OfLong INT64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort INT16 =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private ProduceAckDescriptor() {}

    public static void write(
            final MemorySegment segment,
            final long offset,
            final long baseOffset,
            final int immediate,
            final short errorCode) {
        segment.set(INT64, offset + BASE_OFFSET_OFFSET, baseOffset);
        segment.set(INT32, offset + IMMEDIATE_OFFSET, immediate);
        segment.set(INT16, offset + ERROR_CODE_OFFSET, errorCode);
        segment.set(INT16, offset + ERROR_CODE_OFFSET + 2, (short) 0);
    }

    public static long baseOffset(final MemorySegment segment, final long offset) {
        return segment.get(INT64, offset + BASE_OFFSET_OFFSET);
    }

    public static int immediate(final MemorySegment segment, final long offset) {
        return segment.get(INT32, offset + IMMEDIATE_OFFSET);
    }

    public static short errorCode(final MemorySegment segment, final long offset) {
        return segment.get(INT16, offset + ERROR_CODE_OFFSET);
    }
}
