package io.isthmus.protocol.control;

import java.lang.foreign.MemorySegment;

/**
 * CONSUME_ACCESS response body. The consumer RDMA READs the segment at {@code segmentAddress} with {@code rkey} from
 * {@code startPosition} (the batch holding the asked offset) and never past the readable position, which it refreshes
 * by READing its whole slot range, {@code slotCount} slots of {@link MetadataSlotDescriptor#LENGTH} bytes from {@code
 * slotRegionAddress} with {@code slotRegionRkey}, in one READ; its slot for this partition is {@code slotIndex}.
 *
 * <pre>
 *   0           2           4       8                16             24                32         40
 *   +-----------+-----------+-------+----------------+--------------+-----------------+----------+
 *   | errorCode | segmentId | rkey  | segmentAddress | startPosition| readablePosition| capacity |
 *   | int16     | uint16    | int32 | int64          | int64        | int64           | int64    |
 *   +-----------+-----------+-------+----------------+--------------+-----------------+----------+
 *   40                  48                 56              60         64         68      72
 *   +-------------------+------------------+---------------+----------+----------+-------+
 *   | segmentBaseOffset | slotRegionAddress| slotRegionRkey| slotIndex| slotCount| flags |
 *   | int64             | int64            | int32         | int32    | int32    | int32 |
 *   +-------------------+------------------+---------------+----------+----------+-------+
 * </pre>
 */
public record ConsumeAccessResponse(
        short errorCode,
        int segmentId,
        int rkey,
        long segmentAddress,
        long startPosition,
        long readablePosition,
        long capacity,
        long segmentBaseOffset,
        long slotRegionAddress,
        int slotRegionRkey,
        int slotIndex,
        int slotCount,
        int flags)
        implements ControlMessage {
    /** The segment is sealed: read up to the readable position, then ask for the next one. */
    public static final int SEALED = 1;

    public static final int ERROR_CODE_OFFSET = 0;
    public static final int SEGMENT_ID_OFFSET = 2;
    public static final int RKEY_OFFSET = 4;
    public static final int SEGMENT_ADDRESS_OFFSET = 8;
    public static final int START_POSITION_OFFSET = 16;
    public static final int READABLE_POSITION_OFFSET = 24;
    public static final int CAPACITY_OFFSET = 32;
    public static final int SEGMENT_BASE_OFFSET_OFFSET = 40;
    public static final int SLOT_REGION_ADDRESS_OFFSET = 48;
    public static final int SLOT_REGION_RKEY_OFFSET = 56;
    public static final int SLOT_INDEX_OFFSET = 60;
    public static final int SLOT_COUNT_OFFSET = 64;
    public static final int FLAGS_OFFSET = 68;
    public static final int LENGTH = 72;

    public static ConsumeAccessResponse error(final short errorCode) {
        return new ConsumeAccessResponse(errorCode, 0, 0, 0, 0, 0, 0, -1, 0, 0, -1, 0, 0);
    }

    public boolean sealed() {
        return (flags & SEALED) != 0;
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
        segment.set(ControlCodec.INT64, offset + START_POSITION_OFFSET, startPosition);
        segment.set(ControlCodec.INT64, offset + READABLE_POSITION_OFFSET, readablePosition);
        segment.set(ControlCodec.INT64, offset + CAPACITY_OFFSET, capacity);
        segment.set(ControlCodec.INT64, offset + SEGMENT_BASE_OFFSET_OFFSET, segmentBaseOffset);
        segment.set(ControlCodec.INT64, offset + SLOT_REGION_ADDRESS_OFFSET, slotRegionAddress);
        segment.set(ControlCodec.INT32, offset + SLOT_REGION_RKEY_OFFSET, slotRegionRkey);
        segment.set(ControlCodec.INT32, offset + SLOT_INDEX_OFFSET, slotIndex);
        segment.set(ControlCodec.INT32, offset + SLOT_COUNT_OFFSET, slotCount);
        segment.set(ControlCodec.INT32, offset + FLAGS_OFFSET, flags);
        return LENGTH;
    }

    public static ConsumeAccessResponse decode(final MemorySegment segment, final long offset) {
        ControlCodec.requireLength(segment, offset, LENGTH, "ConsumeAccess response");
        return new ConsumeAccessResponse(
                segment.get(ControlCodec.INT16, offset + ERROR_CODE_OFFSET),
                Short.toUnsignedInt(segment.get(ControlCodec.INT16, offset + SEGMENT_ID_OFFSET)),
                segment.get(ControlCodec.INT32, offset + RKEY_OFFSET),
                segment.get(ControlCodec.INT64, offset + SEGMENT_ADDRESS_OFFSET),
                segment.get(ControlCodec.INT64, offset + START_POSITION_OFFSET),
                segment.get(ControlCodec.INT64, offset + READABLE_POSITION_OFFSET),
                segment.get(ControlCodec.INT64, offset + CAPACITY_OFFSET),
                segment.get(ControlCodec.INT64, offset + SEGMENT_BASE_OFFSET_OFFSET),
                segment.get(ControlCodec.INT64, offset + SLOT_REGION_ADDRESS_OFFSET),
                segment.get(ControlCodec.INT32, offset + SLOT_REGION_RKEY_OFFSET),
                segment.get(ControlCodec.INT32, offset + SLOT_INDEX_OFFSET),
                segment.get(ControlCodec.INT32, offset + SLOT_COUNT_OFFSET),
                segment.get(ControlCodec.INT32, offset + FLAGS_OFFSET));
    }
}
