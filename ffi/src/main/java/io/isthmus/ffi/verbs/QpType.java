package io.isthmus.ffi.verbs;

/** {@code enum ibv_qp_type}: the transport service of a queue pair. */
public enum QpType {
    RC(2),
    UC(3),
    UD(4),
    RAW_PACKET(8),
    XRC_SEND(9),
    XRC_RECV(10),
    DRIVER(255);

    private static final QpType[] BY_VALUE;

    static {
        int max = 0;
        for (QpType constant : values()) {
            max = Math.max(max, constant.value);
        }
        BY_VALUE = new QpType[max + 1];
        for (QpType constant : values()) {
            BY_VALUE[constant.value] = constant;
        }
    }

    private final int value;

    QpType(int value) {
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
    public static QpType of(int value) {
        QpType constant = value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
        if (constant == null) {
            throw new IllegalArgumentException("unknown QpType value: value=" + value);
        }
        return constant;
    }
}
