package io.isthmus.ffi.verbs;

/** {@code enum ibv_atomic_cap}: the atomicity guarantee of RDMA atomics on a device. */
public enum AtomicCapability {
    NONE(0),
    HCA(1),
    GLOB(2);

    private static final AtomicCapability[] BY_VALUE;

    static {
        int max = 0;
        for (AtomicCapability constant : values()) {
            max = Math.max(max, constant.value);
        }
        BY_VALUE = new AtomicCapability[max + 1];
        for (AtomicCapability constant : values()) {
            BY_VALUE[constant.value] = constant;
        }
    }

    private final int value;

    AtomicCapability(int value) {
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
    public static AtomicCapability of(int value) {
        AtomicCapability constant = value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
        if (constant == null) {
            throw new IllegalArgumentException("unknown AtomicCapability value: value=" + value);
        }
        return constant;
    }
}
