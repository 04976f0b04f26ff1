package io.isthmus.protocol.control;

/**
 * SHM_PRODUCE_ACCESS response body. On success the broker created staging file {@code stagingId} in its shared-memory
 * directory ({@link ShmDirectoryLayout#stagingFile}; {@code detail} is its path), {@code slots} slots of {@code
 * slotBytes} each laid out as {@link ProduceStagingDescriptor}'s, which the producer maps read-write; on an error
 * {@code detail} says why.
 *
 * <pre>
 *   0           2          4           8          12          16
 *   +-----------+----------+-----------+----------+-----------+--------------------------+
 *   | errorCode | (pad)    | stagingId | slots    | slotBytes | detail (int16 len, UTF-8)|
 *   | int16     | int16    | int32     | int32    | int32     |                          |
 *   +-----------+----------+-----------+----------+-----------+--------------------------+
 * </pre>
 */
public final class ShmProduceAccessResponse extends ControlFlyweight<ShmProduceAccessResponse> {
    public static final int ERROR_CODE_OFFSET = 0;
    public static final int STAGING_ID_OFFSET = 4;
    public static final int SLOTS_OFFSET = 8;
    public static final int SLOT_BYTES_OFFSET = 12;
    public static final int DETAIL_OFFSET = 16;

    public ShmProduceAccessResponse() {
        super("ShmProduceAccess response", DETAIL_OFFSET, "detail");
    }

    /** Bytes of a response carrying {@code detail}. */
    public static int length(final String detail) {
        return DETAIL_OFFSET + ControlCodec.stringLength(detail);
    }

    public short errorCode() {
        return getInt16(ERROR_CODE_OFFSET);
    }

    public ShmProduceAccessResponse errorCode(final short errorCode) {
        putInt16(ERROR_CODE_OFFSET, errorCode);
        return this;
    }

    /** Names the staging file, and the partition, in every SHM_PRODUCE of this session. */
    public int stagingId() {
        return getInt32(STAGING_ID_OFFSET);
    }

    public ShmProduceAccessResponse stagingId(final int stagingId) {
        putInt32(STAGING_ID_OFFSET, stagingId);
        return this;
    }

    public int slots() {
        return getInt32(SLOTS_OFFSET);
    }

    public ShmProduceAccessResponse slots(final int slots) {
        putInt32(SLOTS_OFFSET, slots);
        return this;
    }

    public int slotBytes() {
        return getInt32(SLOT_BYTES_OFFSET);
    }

    public ShmProduceAccessResponse slotBytes(final int slotBytes) {
        putInt32(SLOT_BYTES_OFFSET, slotBytes);
        return this;
    }

    /** The staging file's path (success) or why access was refused. */
    public String detail() {
        return getString(DETAIL_OFFSET);
    }

    /** Sets the detail; the room wrapped over must hold {@link #length(String) length(detail)} bytes. */
    public ShmProduceAccessResponse detail(final String detail) {
        putString(DETAIL_OFFSET, detail);
        return this;
    }
}
