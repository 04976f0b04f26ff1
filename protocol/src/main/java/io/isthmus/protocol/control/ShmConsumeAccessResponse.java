package io.isthmus.protocol.control;

/**
 * SHM_CONSUME_ACCESS response body (the request is a {@link ConsumeAccessRequest}). The consumer maps the segment file
 * at {@code segmentPath} read-only, {@code capacity} bytes, and reads it in place from {@code startPosition} (the batch
 * holding the asked offset), never past the readable position of its metadata slot {@code slotIndex} in its session's
 * range of the slot file. A {@code read_committed} consumer also maps the partition's aborted-transaction array ({@link
 * AbortedTransactionsDescriptor}), the file {@link ShmDirectoryLayout#abortedFile} of {@code abortedArrayId} in the
 * shared-memory directory: entries {@code abortedBase} up to {@code abortedBase + abortedCapacity}. An error answer
 * carries only its {@code errorCode}.
 *
 * <pre>
 *   0           2       4           8           12          16               24                  32                  40
 *   +-----------+-------+-----------+-----------+-----------+----------------+-------------------+-------------------+
 *   | errorCode | flags | segmentId | slotIndex | capacity  | startPosition  | readablePosition  | segmentBaseOffset |
 *   | int16     | int16 | int32     | int32     | int32     | int64          | int64             | int64             |
 *   +-----------+-------+-----------+-----------+-----------+----------------+-------------------+-------------------+
 *   40                 48              56                60       64
 *   +------------------+---------------+-----------------+--------+-------------------------------+
 *   | abortedArrayId   | abortedBase   | abortedCapacity | (pad)  | segmentPath (int16 len, UTF-8)|
 *   | int64            | int64         | int32           | int32  |                               |
 *   +------------------+---------------+-----------------+--------+-------------------------------+
 * </pre>
 */
public final class ShmConsumeAccessResponse extends ControlFlyweight<ShmConsumeAccessResponse> {
    /** The segment is sealed: read up to the readable position, then ask for the next one. */
    public static final short SEALED = 1;

    public static final int ERROR_CODE_OFFSET = 0;
    public static final int FLAGS_OFFSET = 2;
    public static final int SEGMENT_ID_OFFSET = 4;
    public static final int SLOT_INDEX_OFFSET = 8;
    public static final int CAPACITY_OFFSET = 12;
    public static final int START_POSITION_OFFSET = 16;
    public static final int READABLE_POSITION_OFFSET = 24;
    public static final int SEGMENT_BASE_OFFSET_OFFSET = 32;
    public static final int ABORTED_ARRAY_ID_OFFSET = 40;
    public static final int ABORTED_BASE_OFFSET = 48;
    public static final int ABORTED_CAPACITY_OFFSET = 56;
    public static final int SEGMENT_PATH_OFFSET = 64;

    public ShmConsumeAccessResponse() {
        super("ShmConsumeAccess response", SEGMENT_PATH_OFFSET, "segmentPath");
    }

    /** Bytes of a response carrying {@code segmentPath} (null in an error answer). */
    public static int length(final String segmentPath) {
        return SEGMENT_PATH_OFFSET + ControlCodec.stringLength(segmentPath);
    }

    public short errorCode() {
        return getInt16(ERROR_CODE_OFFSET);
    }

    public ShmConsumeAccessResponse errorCode(final short errorCode) {
        putInt16(ERROR_CODE_OFFSET, errorCode);
        return this;
    }

    public short flags() {
        return getInt16(FLAGS_OFFSET);
    }

    public ShmConsumeAccessResponse flags(final short flags) {
        putInt16(FLAGS_OFFSET, flags);
        return this;
    }

    public boolean sealed() {
        return (flags() & SEALED) != 0;
    }

    public int segmentId() {
        return getInt32(SEGMENT_ID_OFFSET);
    }

    public ShmConsumeAccessResponse segmentId(final int segmentId) {
        putInt32(SEGMENT_ID_OFFSET, segmentId);
        return this;
    }

    public int slotIndex() {
        return getInt32(SLOT_INDEX_OFFSET);
    }

    public ShmConsumeAccessResponse slotIndex(final int slotIndex) {
        putInt32(SLOT_INDEX_OFFSET, slotIndex);
        return this;
    }

    /** Bytes of the segment file to map. */
    public int capacity() {
        return getInt32(CAPACITY_OFFSET);
    }

    public ShmConsumeAccessResponse capacity(final int capacity) {
        putInt32(CAPACITY_OFFSET, capacity);
        return this;
    }

    public long startPosition() {
        return getInt64(START_POSITION_OFFSET);
    }

    public ShmConsumeAccessResponse startPosition(final long startPosition) {
        putInt64(START_POSITION_OFFSET, startPosition);
        return this;
    }

    public long readablePosition() {
        return getInt64(READABLE_POSITION_OFFSET);
    }

    public ShmConsumeAccessResponse readablePosition(final long readablePosition) {
        putInt64(READABLE_POSITION_OFFSET, readablePosition);
        return this;
    }

    public long segmentBaseOffset() {
        return getInt64(SEGMENT_BASE_OFFSET_OFFSET);
    }

    public ShmConsumeAccessResponse segmentBaseOffset(final long segmentBaseOffset) {
        putInt64(SEGMENT_BASE_OFFSET_OFFSET, segmentBaseOffset);
        return this;
    }

    /** Which aborted-transaction array file of the directory holds the partition's entries. */
    public long abortedArrayId() {
        return getInt64(ABORTED_ARRAY_ID_OFFSET);
    }

    public ShmConsumeAccessResponse abortedArrayId(final long abortedArrayId) {
        putInt64(ABORTED_ARRAY_ID_OFFSET, abortedArrayId);
        return this;
    }

    /** Index (counted from the partition's first entry) of the array's first entry. */
    public long abortedBase() {
        return getInt64(ABORTED_BASE_OFFSET);
    }

    public ShmConsumeAccessResponse abortedBase(final long abortedBase) {
        putInt64(ABORTED_BASE_OFFSET, abortedBase);
        return this;
    }

    /** Entries the array holds at most. */
    public int abortedCapacity() {
        return getInt32(ABORTED_CAPACITY_OFFSET);
    }

    public ShmConsumeAccessResponse abortedCapacity(final int abortedCapacity) {
        putInt32(ABORTED_CAPACITY_OFFSET, abortedCapacity);
        return this;
    }

    /** The segment's log file, absolute. */
    public String segmentPath() {
        return getString(SEGMENT_PATH_OFFSET);
    }

    public ShmConsumeAccessResponse segmentPath(final String segmentPath) {
        putString(SEGMENT_PATH_OFFSET, segmentPath);
        return this;
    }
}
