package io.isthmus.protocol.control;

/**
 * SHM_ATTACH response body. On success the connection has a shared-memory session: its metadata slots are the range
 * {@code slotRange} of the broker's slot file ({@link ShmSlotFileDescriptor}), {@code slotsPerRange} slots from {@link
 * ShmSlotFileDescriptor#rangeOffset}, in the file of generation {@code generation}. The {@code detail} string is the
 * broker's shared-memory directory on success and on SHM_TOKEN_MISMATCH (so a client that has not read the token yet
 * knows where to), and the reason on SHM_UNAVAILABLE.
 *
 * <pre>
 *   0           2          4           8               12         16               24
 *   +-----------+----------+-----------+---------------+----------+----------------+--------------------------+
 *   | errorCode | (pad)    | slotRange | slotsPerRange | (pad)    | generation     | detail (int16 len, UTF-8)|
 *   | int16     | int16    | int32     | int32         | int32    | int64          |                          |
 *   +-----------+----------+-----------+---------------+----------+----------------+--------------------------+
 * </pre>
 */
public final class ShmAttachResponse extends ControlFlyweight<ShmAttachResponse> {
    public static final int ERROR_CODE_OFFSET = 0;
    public static final int SLOT_RANGE_OFFSET = 4;
    public static final int SLOTS_PER_RANGE_OFFSET = 8;
    public static final int GENERATION_OFFSET = 16;
    public static final int DETAIL_OFFSET = 24;

    public ShmAttachResponse() {
        super("ShmAttach response", DETAIL_OFFSET, "detail");
    }

    /** Bytes of a response carrying {@code detail}. */
    public static int length(final String detail) {
        return DETAIL_OFFSET + ControlCodec.stringLength(detail);
    }

    public short errorCode() {
        return getInt16(ERROR_CODE_OFFSET);
    }

    public ShmAttachResponse errorCode(final short errorCode) {
        putInt16(ERROR_CODE_OFFSET, errorCode);
        return this;
    }

    public int slotRange() {
        return getInt32(SLOT_RANGE_OFFSET);
    }

    public ShmAttachResponse slotRange(final int slotRange) {
        putInt32(SLOT_RANGE_OFFSET, slotRange);
        return this;
    }

    public int slotsPerRange() {
        return getInt32(SLOTS_PER_RANGE_OFFSET);
    }

    public ShmAttachResponse slotsPerRange(final int slotsPerRange) {
        putInt32(SLOTS_PER_RANGE_OFFSET, slotsPerRange);
        return this;
    }

    /** The slot file's generation: a client checks the file it maps carries it (a restarted broker has another). */
    public long generation() {
        return getInt64(GENERATION_OFFSET);
    }

    public ShmAttachResponse generation(final long generation) {
        putInt64(GENERATION_OFFSET, generation);
        return this;
    }

    /** The broker's shared-memory directory (success, SHM_TOKEN_MISMATCH) or why it refused (SHM_UNAVAILABLE). */
    public String detail() {
        return getString(DETAIL_OFFSET);
    }

    /** Sets the detail; the room wrapped over must hold {@link #length(String) length(detail)} bytes. */
    public ShmAttachResponse detail(final String detail) {
        putString(DETAIL_OFFSET, detail);
        return this;
    }
}
