package io.isthmus.client.rdma;

import java.lang.foreign.MemorySegment;

/**
 * PRODUCE_ACCESS response body. The producer writes whole RecordBatch v2 batches, one per WRITE WITH IMM, at
 * {@code segmentAddress + tailPosition} onwards with {@code rkey}, never past {@code capacity}, and numbers them with
 * {@link ProduceImmediateDescriptor immediates} carrying {@code segmentId} and orders from {@code firstOrder} on.
 *
 * <pre>
 *   0           2           4       8                16              24          32                 40          44      48
 *   +-----------+-----------+-------+----------------+---------------+-----------+------------------+-----------+-------+
 *   | errorCode | segmentId | rkey  | segmentAddress | tailPosition  | capacity  | segmentBaseOffset| firstOrder| (pad) |
 *   | int16     | uint16    | int32 | int64          | int64         | int64     | int64            | int32     | int32 |
 *   +-----------+-----------+-------+----------------+---------------+-----------+------------------+-----------+-------+
 * </pre>
 */
public record ProduceAccessResponse(
        short errorCode,
        int segmentId,
        int rkey,
        long segmentAddress,
        long tailPosition,
        long capacity,
        long segmentBaseOffset,
        int firstOrder)
        implements ControlMessage {
    public static final int ERROR_CODE_OFFSET = 0;
    public static final int SEGMENT_ID_OFFSET = 2;
    public static final int RKEY_OFFSET = 4;
    public static final int SEGMENT_ADDRESS_OFFSET = 8;
    public static final int TAIL_POSITION_OFFSET = 16;
    public static final int CAPACITY_OFFSET = 24;
    public static final int SEGMENT_BASE_OFFSET_OFFSET = 32;
    public static final int FIRST_ORDER_OFFSET = 40;
    public static final int LENGTH = 48;

    public static ProduceAccessResponse error(final short errorCode) {
        return new ProduceAccessResponse(errorCode, 0, 0, 0, 0, 0, -1, 0);
    }

    @Override
    public int encodedLength() {
        return LENGTH;
    }

    @Override
    public int encode(final MemorySegment segment, final long offset) {
        segment.set(ControlCodec.INT16, offset + ERROR_CODE_OFFSET, errorCode);
        segment.set(ControlCodec.INT16, offset + SEGMENT_ID_OFFSET, (short) segmentId);
        segment.set(ControlCodec.INT32, offset + RKEY_OFFSET, rkey);
        segment.set(ControlCodec.INT64, offset + SEGMENT_ADDRESS_OFFSET, segmentAddress);
        segment.set(ControlCodec.INT64, offset + TAIL_POSITION_OFFSET, tailPosition);
        segment.set(ControlCodec.INT64, offset + CAPACITY_OFFSET, capacity);
        segment.set(ControlCodec.INT64, offset + SEGMENT_BASE_OFFSET_OFFSET, segmentBaseOffset);
        segment.set(ControlCodec.INT32, offset + FIRST_ORDER_OFFSET, firstOrder);
        segment.set(ControlCodec.INT32, offset + FIRST_ORDER_OFFSET + 4, 0);
        return LENGTH;
    }

    public static ProduceAccessResponse decode(final MemorySegment segment, final long offset) {
        ControlCodec.requireLength(segment, offset, LENGTH, "ProduceAccess response");
        return new ProduceAccessResponse(
                segment.get(ControlCodec.INT16, offset + ERROR_CODE_OFFSET),
                Short.toUnsignedInt(segment.get(ControlCodec.INT16, offset + SEGMENT_ID_OFFSET)),
                segment.get(ControlCodec.INT32, offset + RKEY_OFFSET),
                segment.get(ControlCodec.INT64, offset + SEGMENT_ADDRESS_OFFSET),
                segment.get(ControlCodec.INT64, offset + TAIL_POSITION_OFFSET),
                segment.get(ControlCodec.INT64, offset + CAPACITY_OFFSET),
                segment.get(ControlCodec.INT64, offset + SEGMENT_BASE_OFFSET_OFFSET),
                segment.get(ControlCodec.INT32, offset + FIRST_ORDER_OFFSET));
    }
}
