package io.isthmus.ffi.verbs;

/** {@code enum ibv_port_state}: the logical state of a port. */
public enum PortState {
    NOP(0),
    DOWN(1),
    INIT(2),
    ARMED(3),
    ACTIVE(4),
    ACTIVE_DEFER(5);

    private static final PortState[] BY_VALUE;

    static {
        int max = 0;
        for (PortState constant : values()) {
            max = Math.max(max, constant.value);
        }
        BY_VALUE = new PortState[max + 1];
        for (PortState constant : values()) {
            BY_VALUE[constant.value] = constant;
        }
    }

    private final int value;

    PortState(int value) {
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
    public static PortState of(int value) {
        PortState constant = value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
        if (constant == null) {
            throw new IllegalArgumentException("unknown PortState value: value=" + value);
        }
        return constant;
    }
}
