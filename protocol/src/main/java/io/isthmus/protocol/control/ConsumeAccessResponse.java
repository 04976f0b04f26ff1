package io.isthmus.protocol.control;

/**
 * CONSUME_ACCESS response body. The consumer RDMA READs the segment at {@code segmentAddress} with {@code rkey} from
 * {@code startPosition} (the batch holding the asked offset) and never past the readable position, which it refreshes
 * by READing its whole slot range, {@code slotCount} slots of {@link MetadataSlotDescriptor#LENGTH} bytes from {@code
 * slotRegionAddress} with {@code slotRegionRkey}, in one READ; its slot for this partition is {@code slotIndex}. A
 * {@code read_committed} consumer also READs the partition's {@link AbortedTransactionsDescriptor aborted transactions}
 * from {@code abortedAddress} with {@code abortedRkey}: entries {@code abortedBase} up to {@code abortedBase +
 * abortedCapacity}. An error answer carries only its {@code errorCode}; every other field is 0.
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
 *   72                  80            84               88            96
 *   +-------------------+-------------+----------------+-------------+
 *   | abortedAddress    | abortedRkey | abortedCapacity| abortedBase |
 *   | int64             | int32       | int32          | int64       |
 *   +-------------------+-------------+----------------+-------------+
 * </pre>
 */
public final class ConsumeAccessResponse extends ControlFlyweight<ConsumeAccessResponse> {
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
    public static final int ABORTED_ADDRESS_OFFSET = 72;
    public static final int ABORTED_RKEY_OFFSET = 80;
    public static final int ABORTED_CAPACITY_OFFSET = 84;
    public static final int ABORTED_BASE_OFFSET = 88;
    public static final int LENGTH = 96;

    public ConsumeAccessResponse() {
        super("ConsumeAccess response", LENGTH, null);
    }

    public short errorCode() {
        return getInt16(ERROR_CODE_OFFSET);
    }

    public ConsumeAccessResponse errorCode(final short errorCode) {
        putInt16(ERROR_CODE_OFFSET, errorCode);
        return this;
    }

    /** The segment's id, unsigned 16 bits. */
    public int segmentId() {
        return Short.toUnsignedInt(getInt16(SEGMENT_ID_OFFSET));
    }

    public ConsumeAccessResponse segmentId(final int segmentId) {
        putInt16(SEGMENT_ID_OFFSET, (short) segmentId);
        return this;
    }

    public int rkey() {
        return getInt32(RKEY_OFFSET);
    }

    public ConsumeAccessResponse rkey(final int rkey) {
        putInt32(RKEY_OFFSET, rkey);
        return this;
    }

    public long segmentAddress() {
        return getInt64(SEGMENT_ADDRESS_OFFSET);
    }

    public ConsumeAccessResponse segmentAddress(final long segmentAddress) {
        putInt64(SEGMENT_ADDRESS_OFFSET, segmentAddress);
        return this;
    }

    public long startPosition() {
        return getInt64(START_POSITION_OFFSET);
    }

    public ConsumeAccessResponse startPosition(final long startPosition) {
        putInt64(START_POSITION_OFFSET, startPosition);
        return this;
    }

    public long readablePosition() {
        return getInt64(READABLE_POSITION_OFFSET);
    }

    public ConsumeAccessResponse readablePosition(final long readablePosition) {
        putInt64(READABLE_POSITION_OFFSET, readablePosition);
        return this;
    }

    public long capacity() {
        return getInt64(CAPACITY_OFFSET);
    }

    public ConsumeAccessResponse capacity(final long capacity) {
        putInt64(CAPACITY_OFFSET, capacity);
        return this;
    }

    public long segmentBaseOffset() {
        return getInt64(SEGMENT_BASE_OFFSET_OFFSET);
    }

    public ConsumeAccessResponse segmentBaseOffset(final long segmentBaseOffset) {
        putInt64(SEGMENT_BASE_OFFSET_OFFSET, segmentBaseOffset);
        return this;
    }

    public long slotRegionAddress() {
        return getInt64(SLOT_REGION_ADDRESS_OFFSET);
    }

    public ConsumeAccessResponse slotRegionAddress(final long slotRegionAddress) {
        putInt64(SLOT_REGION_ADDRESS_OFFSET, slotRegionAddress);
        return this;
    }

    public int slotRegionRkey() {
        return getInt32(SLOT_REGION_RKEY_OFFSET);
    }

    public ConsumeAccessResponse slotRegionRkey(final int slotRegionRkey) {
        putInt32(SLOT_REGION_RKEY_OFFSET, slotRegionRkey);
        return this;
    }

    public int slotIndex() {
        return getInt32(SLOT_INDEX_OFFSET);
    }

    public ConsumeAccessResponse slotIndex(final int slotIndex) {
        putInt32(SLOT_INDEX_OFFSET, slotIndex);
        return this;
    }

    public int slotCount() {
        return getInt32(SLOT_COUNT_OFFSET);
    }

    public ConsumeAccessResponse slotCount(final int slotCount) {
        putInt32(SLOT_COUNT_OFFSET, slotCount);
        return this;
    }

    /** {@link #SEALED} or 0. */
    public int flags() {
        return getInt32(FLAGS_OFFSET);
    }

    public ConsumeAccessResponse flags(final int flags) {
        putInt32(FLAGS_OFFSET, flags);
        return this;
    }

    public boolean sealed() {
        return (flags() & SEALED) != 0;
    }

    public long abortedAddress() {
        return getInt64(ABORTED_ADDRESS_OFFSET);
    }

    public ConsumeAccessResponse abortedAddress(final long abortedAddress) {
        putInt64(ABORTED_ADDRESS_OFFSET, abortedAddress);
        return this;
    }

    public int abortedRkey() {
        return getInt32(ABORTED_RKEY_OFFSET);
    }

    public ConsumeAccessResponse abortedRkey(final int abortedRkey) {
        putInt32(ABORTED_RKEY_OFFSET, abortedRkey);
        return this;
    }

    /** Entries the aborted-transaction array holds. */
    public int abortedCapacity() {
        return getInt32(ABORTED_CAPACITY_OFFSET);
    }

    public ConsumeAccessResponse abortedCapacity(final int abortedCapacity) {
        putInt32(ABORTED_CAPACITY_OFFSET, abortedCapacity);
        return this;
    }

    /** Index of the array's first entry among all the partition's aborted transactions. */
    public long abortedBase() {
        return getInt64(ABORTED_BASE_OFFSET);
    }

    public ConsumeAccessResponse abortedBase(final long abortedBase) {
        putInt64(ABORTED_BASE_OFFSET, abortedBase);
        return this;
    }
}
