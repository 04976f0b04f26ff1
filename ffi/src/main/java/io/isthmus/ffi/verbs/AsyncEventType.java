package io.isthmus.ffi.verbs;

/** {@code enum ibv_event_type}: an asynchronous event of a device context. */
public enum AsyncEventType {
    CQ_ERR(0),
    QP_FATAL(1),
    QP_REQ_ERR(2),
    QP_ACCESS_ERR(3),
    COMM_EST(4),
    SQ_DRAINED(5),
    PATH_MIG(6),
    PATH_MIG_ERR(7),
    DEVICE_FATAL(8),
    PORT_ACTIVE(9),
    PORT_ERR(10),
    LID_CHANGE(11),
    PKEY_CHANGE(12),
    SM_CHANGE(13),
    SRQ_ERR(14),
    SRQ_LIMIT_REACHED(15),
    QP_LAST_WQE_REACHED(16),
    CLIENT_REREGISTER(17),
    GID_CHANGE(18),
    WQ_FATAL(19);

    private static final AsyncEventType[] BY_VALUE;

    static {
        int max = 0;
        for (AsyncEventType constant : values()) {
            max = Math.max(max, constant.value);
        }
        BY_VALUE = new AsyncEventType[max + 1];
        for (AsyncEventType constant : values()) {
            BY_VALUE[constant.value] = constant;
        }
    }

    private final int value;

    AsyncEventType(int value) {
        this.value = value;
    }

    /** The C enum value. */
    public int value() {
        return value;
    }

    /**
     * The constant for a C enum value; allocation-free.
     *
     * @throws IllegalArgumentException for a value the header does not define
     */
    public static AsyncEventType of(int value) {
        AsyncEventType constant = value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
        if (constant == null) {
            throw new IllegalArgumentException("unknown AsyncEventType value: value=" + value);
        }
        return constant;
    }
}
