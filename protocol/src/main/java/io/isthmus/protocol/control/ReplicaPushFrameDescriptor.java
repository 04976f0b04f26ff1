package io.isthmus.protocol.control;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * What one push-replication WRITE WITH IMM carries into a follower's staging slot: a header with the length of the
 * batches that follow, then whole RecordBatch v2 batches the leader committed, contiguous in its log. The length
 * travels in the data because a receive completion's {@code byte_len} cannot be trusted for WRITE WITH IMM (Soft-RoCE
 * reports 0), and the slot's bytes past this write are an earlier write's.
 *
 * <pre>
 *   0          4          8
 *   +----------+----------+----------------------------------+
 *   | length   | reserved | batches (length bytes)           |
 *   | int32    | int32    |                                  |
 *   +----------+----------+----------------------------------+
 * </pre>
 *
 * <p>Little-endian, as the other RDMA descriptors.
 */
public final class ReplicaPushFrameDescriptor {
    public static final int LENGTH_OFFSET = 0;
    public static final int HEADER_LENGTH = 8;

    private static final ValueLayout.OfInt INT32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private ReplicaPushFrameDescriptor() {}

    /** Writes the header of a frame at {@code offset} whose batches are {@code length} bytes. */
    public static void writeHeader(final MemorySegment segment, final long offset, final int length) {
        segment.set(INT32, offset + LENGTH_OFFSET, length);
        segment.set(INT32, offset + LENGTH_OFFSET + 4, 0);
    }

    /** The length of the batches the frame at {@code offset} carries, as its header says (check it against the slot). */
    public static int batchesLength(final MemorySegment segment, final long offset) {
        return segment.get(INT32, offset + LENGTH_OFFSET);
    }

    /** The batches of a frame at {@code offset} in {@code segment}, once their length is known to fit. */
    public static MemorySegment batches(final MemorySegment segment, final long offset, final int length) {
        return segment.asSlice(offset + HEADER_LENGTH, length);
    }
}
