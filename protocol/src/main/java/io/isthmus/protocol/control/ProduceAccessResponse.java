package io.isthmus.protocol.control;

/**
 * PRODUCE_ACCESS response body. The producer writes whole RecordBatch v2 batches, one per WRITE WITH IMM, into its
 * connection's {@link ProduceStagingDescriptor staging slots} at {@code stagingAddress} with {@code stagingRkey}, each
 * at most {@code stagingSlotBytes} long, and numbers them with {@link ProduceImmediateDescriptor immediates} carrying
 * {@code segmentId} and an order. The broker copies each batch from its slot to the segment's tail and commits the
 * copy: no producer can write the log itself, so nothing it writes after an ack changes what consumers read. {@code
 * tailPosition} and {@code capacity} say where in the segment the batches will go, so the producer knows when the
 * segment is full. An error answer carries only its {@code errorCode}; every other field is 0.
 *
 * <ul>
 *   <li><b>Exclusive</b> ({@code flags} without {@link #SHARED}): batches go at {@code tailPosition} onwards, orders
 *       count from {@code firstOrder}.
 *   <li><b>Shared</b>: before each batch the producer adds {@link SharedProduceWordDescriptor#reservation} to the
 *       8-byte word at {@code wordAddress} ({@code wordRkey}) with an RDMA FETCH_AND_ADD; the old value gives the
 *       batch's position and order.
 *   <li><b>Replica</b> (asked with {@link ProduceAccessRequest#REPLICA}): the follower's log is not the leader's to
 *       place batches in; {@code tailPosition} is the follower's log end offset, where the leader's next write must
 *       begin, {@code capacity} is {@link Long#MAX_VALUE} (the follower rolls its own segments) and orders count from
 *       {@code firstOrder}. Each ack's base offset is the follower's log end offset after the write.
 * </ul>
 *
 * <pre>
 *   0           2           4            8                16              24          32                 40
 *   +-----------+-----------+------------+----------------+---------------+-----------+------------------+
 *   | errorCode | segmentId | stagingRkey| stagingAddress | tailPosition  | capacity  | segmentBaseOffset|
 *   | int16     | uint16    | int32      | int64          | int64         | int64     | int64            |
 *   +-----------+-----------+------------+----------------+---------------+-----------+------------------+
 *   40          44          48              56          60                64
 *   +-----------+-----------+---------------+-----------+-----------------+
 *   | firstOrder| flags     | wordAddress   | wordRkey  | stagingSlotBytes|
 *   | int32     | int32     | int64         | int32     | int32           |
 *   +-----------+-----------+---------------+-----------+-----------------+
 * </pre>
 */
public final class ProduceAccessResponse extends ControlFlyweight<ProduceAccessResponse> {
    /** The grant is shared: reserve through the word. */
    public static final int SHARED = 1;

    public static final int ERROR_CODE_OFFSET = 0;
    public static final int SEGMENT_ID_OFFSET = 2;
    public static final int STAGING_RKEY_OFFSET = 4;
    public static final int STAGING_ADDRESS_OFFSET = 8;
    public static final int TAIL_POSITION_OFFSET = 16;
    public static final int CAPACITY_OFFSET = 24;
    public static final int SEGMENT_BASE_OFFSET_OFFSET = 32;
    public static final int FIRST_ORDER_OFFSET = 40;
    public static final int FLAGS_OFFSET = 44;
    public static final int WORD_ADDRESS_OFFSET = 48;
    public static final int WORD_RKEY_OFFSET = 56;
    public static final int STAGING_SLOT_BYTES_OFFSET = 60;
    public static final int LENGTH = 64;

    public ProduceAccessResponse() {
        super("ProduceAccess response", LENGTH, null);
    }

    public short errorCode() {
        return getInt16(ERROR_CODE_OFFSET);
    }

    public ProduceAccessResponse errorCode(final short errorCode) {
        putInt16(ERROR_CODE_OFFSET, errorCode);
        return this;
    }

    /** The segment's id, unsigned 16 bits. */
    public int segmentId() {
        return Short.toUnsignedInt(getInt16(SEGMENT_ID_OFFSET));
    }

    public ProduceAccessResponse segmentId(final int segmentId) {
        putInt16(SEGMENT_ID_OFFSET, (short) segmentId);
        return this;
    }

    /** The rkey of the connection's staging slots (the same in every grant of a connection). */
    public int stagingRkey() {
        return getInt32(STAGING_RKEY_OFFSET);
    }

    public ProduceAccessResponse stagingRkey(final int stagingRkey) {
        putInt32(STAGING_RKEY_OFFSET, stagingRkey);
        return this;
    }

    /** The address of staging slot 0. */
    public long stagingAddress() {
        return getInt64(STAGING_ADDRESS_OFFSET);
    }

    public ProduceAccessResponse stagingAddress(final long stagingAddress) {
        putInt64(STAGING_ADDRESS_OFFSET, stagingAddress);
        return this;
    }

    /** The size of each staging slot: the largest batch the producer may write. */
    public int stagingSlotBytes() {
        return getInt32(STAGING_SLOT_BYTES_OFFSET);
    }

    public ProduceAccessResponse stagingSlotBytes(final int stagingSlotBytes) {
        putInt32(STAGING_SLOT_BYTES_OFFSET, stagingSlotBytes);
        return this;
    }

    public long tailPosition() {
        return getInt64(TAIL_POSITION_OFFSET);
    }

    public ProduceAccessResponse tailPosition(final long tailPosition) {
        putInt64(TAIL_POSITION_OFFSET, tailPosition);
        return this;
    }

    public long capacity() {
        return getInt64(CAPACITY_OFFSET);
    }

    public ProduceAccessResponse capacity(final long capacity) {
        putInt64(CAPACITY_OFFSET, capacity);
        return this;
    }

    public long segmentBaseOffset() {
        return getInt64(SEGMENT_BASE_OFFSET_OFFSET);
    }

    public ProduceAccessResponse segmentBaseOffset(final long segmentBaseOffset) {
        putInt64(SEGMENT_BASE_OFFSET_OFFSET, segmentBaseOffset);
        return this;
    }

    public int firstOrder() {
        return getInt32(FIRST_ORDER_OFFSET);
    }

    public ProduceAccessResponse firstOrder(final int firstOrder) {
        putInt32(FIRST_ORDER_OFFSET, firstOrder);
        return this;
    }

    /** {@link #SHARED} or 0. */
    public int flags() {
        return getInt32(FLAGS_OFFSET);
    }

    public ProduceAccessResponse flags(final int flags) {
        putInt32(FLAGS_OFFSET, flags);
        return this;
    }

    public boolean shared() {
        return (flags() & SHARED) != 0;
    }

    public long wordAddress() {
        return getInt64(WORD_ADDRESS_OFFSET);
    }

    public ProduceAccessResponse wordAddress(final long wordAddress) {
        putInt64(WORD_ADDRESS_OFFSET, wordAddress);
        return this;
    }

    public int wordRkey() {
        return getInt32(WORD_RKEY_OFFSET);
    }

    public ProduceAccessResponse wordRkey(final int wordRkey) {
        putInt32(WORD_RKEY_OFFSET, wordRkey);
        return this;
    }
}
