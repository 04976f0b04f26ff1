package io.isthmus.ffi.verbs;

/** {@code enum ibv_qp_state}: the state machine of a queue pair (RESET, INIT, RTR, RTS, ...). */
public enum QpState {
    RESET(0),
    INIT(1),
    RTR(2),
    RTS(3),
    SQD(4),
    SQE(5),
    ERR(6),
    UNKNOWN(7);

    private static final QpState[] BY_VALUE;

    static {
        int max = 0;
        for (QpState constant : values()) {
            max = Math.max(max, constant.value);
        }
        BY_VALUE = new QpState[max + 1];
        for (QpState constant : values()) {
            BY_VALUE[constant.value] = constant;
        }
    }

    private final int value;

    QpState(int value) {
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
    public static QpState of(int value) {
        QpState constant = value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
        if (constant == null) {
            throw new IllegalArgumentException("unknown QpState value: value=" + value);
        }
        return constant;
    }
}
