package io.isthmus.protocol.control;

import java.lang.foreign.MemorySegment;

/**
 * PRODUCE_ACCESS response body. The producer writes whole RecordBatch v2 batches, one per WRITE WITH IMM, into the
 * segment at {@code segmentAddress} with {@code rkey}, never past {@code capacity}, and numbers them with {@link
 * ProduceImmediateDescriptor immediates} carrying {@code segmentId} and an order.
 *
 * <ul>
 *   <li><b>Exclusive</b> ({@code flags} without {@link #SHARED}): batches go at {@code tailPosition} onwards, orders
 *       count from {@code firstOrder}.
 *   <li><b>Shared</b>: before each batch the producer adds {@link SharedProduceWordDescriptor#reservation} to the 8-byte
 *       word at {@code wordAddress} ({@code wordRkey}) with an RDMA FETCH_AND_ADD; the old value gives the batch's
 *       position and order.
 * </ul>
 *
 * <pre>
 *   0           2           4       8                16              24          32                 40
 *   +-----------+-----------+-------+----------------+---------------+-----------+------------------+
 *   | errorCode | segmentId | rkey  | segmentAddress | tailPosition  | capacity  | segmentBaseOffset|
 *   | int16     | uint16    | int32 | int64          | int64         | int64     | int64            |
 *   +-----------+-----------+-------+----------------+---------------+-----------+------------------+
 *   40          44          48              56          60      64
 *   +-----------+-----------+---------------+-----------+-------+
 *   | firstOrder| flags     | wordAddress   | wordRkey  | (pad) |
 *   | int32     | int32     | int64         | int32     | int32 |
 *   +-----------+-----------+---------------+-----------+-------+
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
        int firstOrder,
        int flags,
        long wordAddress,
        int wordRkey)
        implements ControlMessage {
    /** The grant is shared: reserve through the word. */
    public static final int SHARED = 1;

    public static final int ERROR_CODE_OFFSET = 0;
    public static final int SEGMENT_ID_OFFSET = 2;
    public static final int RKEY_OFFSET = 4;
    public static final int SEGMENT_ADDRESS_OFFSET = 8;
    public static final int TAIL_POSITION_OFFSET = 16;
    public static final int CAPACITY_OFFSET = 24;
    public static final int SEGMENT_BASE_OFFSET_OFFSET = 32;
    public static final int FIRST_ORDER_OFFSET = 40;
    public static final int FLAGS_OFFSET = 44;
    public static final int WORD_ADDRESS_OFFSET = 48;
    public static final int WORD_RKEY_OFFSET = 56;
    public static final int LENGTH = 64;

    public static ProduceAccessResponse error(final short errorCode) {
        return new ProduceAccessResponse(errorCode, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0);
    }

    /** An exclusive grant. */
    public static ProduceAccessResponse exclusive(
            final int segmentId,
            final int rkey,
            final long segmentAddress,
            final long tailPosition,
            final long capacity,
            final long segmentBaseOffset,
            final int firstOrder) {
        return new ProduceAccessResponse(
                ControlErrorCodes.NONE,
                segmentId,
                rkey,
                segmentAddress,
                tailPosition,
                capacity,
                segmentBaseOffset,
                firstOrder,
                0,
                0,
                0);
    }

    public boolean shared() {
        return (flags & SHARED) != 0;
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
        segment.set(ControlCodec.INT32, offset + FLAGS_OFFSET, flags);
        segment.set(ControlCodec.INT64, offset + WORD_ADDRESS_OFFSET, wordAddress);
        segment.set(ControlCodec.INT32, offset + WORD_RKEY_OFFSET, wordRkey);
        segment.set(ControlCodec.INT32, offset + WORD_RKEY_OFFSET + 4, 0);
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
                segment.get(ControlCodec.INT32, offset + FIRST_ORDER_OFFSET),
                segment.get(ControlCodec.INT32, offset + FLAGS_OFFSET),
                segment.get(ControlCodec.INT64, offset + WORD_ADDRESS_OFFSET),
                segment.get(ControlCodec.INT32, offset + WORD_RKEY_OFFSET));
    }
}
