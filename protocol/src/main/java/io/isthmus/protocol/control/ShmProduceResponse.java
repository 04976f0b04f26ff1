package io.isthmus.protocol.control;

/**
 * SHM_PRODUCE response body: the batch's base offset once committed (for a retry of a batch already in the log, the
 * original's, as Kafka answers), or an error: Kafka's code where Kafka has one (CORRUPT_MESSAGE, MESSAGE_TOO_LARGE,
 * OUT_OF_ORDER_SEQUENCE_NUMBER, KAFKA_STORAGE_ERROR, ...) with the reason in {@code detail}.
 *
 * <pre>
 *   0           2                   8                16
 *   +-----------+-------------------+----------------+--------------------------+
 *   | errorCode | (pad)             | baseOffset     | detail (int16 len, UTF-8)|
 *   | int16     |                   | int64          |                          |
 *   +-----------+-------------------+----------------+--------------------------+
 * </pre>
 */
public final class ShmProduceResponse extends ControlFlyweight<ShmProduceResponse> {
    public static final int ERROR_CODE_OFFSET = 0;
    public static final int BASE_OFFSET_OFFSET = 8;
    public static final int DETAIL_OFFSET = 16;

    public ShmProduceResponse() {
        super("ShmProduce response", DETAIL_OFFSET, "detail");
    }

    /** Bytes of a response carrying {@code detail}. */
    public static int length(final String detail) {
        return DETAIL_OFFSET + ControlCodec.stringLength(detail);
    }

    public short errorCode() {
        return getInt16(ERROR_CODE_OFFSET);
    }

    public ShmProduceResponse errorCode(final short errorCode) {
        putInt16(ERROR_CODE_OFFSET, errorCode);
        return this;
    }

    public long baseOffset() {
        return getInt64(BASE_OFFSET_OFFSET);
    }

    public ShmProduceResponse baseOffset(final long baseOffset) {
        putInt64(BASE_OFFSET_OFFSET, baseOffset);
        return this;
    }

    /** Why the batch was refused, or null. */
    public String detail() {
        return getString(DETAIL_OFFSET);
    }

    public ShmProduceResponse detail(final String detail) {
        putString(DETAIL_OFFSET, detail);
        return this;
    }
}
