package io.isthmus.ffi.verbs;

/** {@code enum ibv_mtu}: a path MTU. */
public enum Mtu {
    MTU_256(1),
    MTU_512(2),
    MTU_1024(3),
    MTU_2048(4),
    MTU_4096(5);

    private static final Mtu[] BY_VALUE;

    static {
        int max = 0;
        for (Mtu constant : values()) {
            max = Math.max(max, constant.value);
        }
        BY_VALUE = new Mtu[max + 1];
        for (Mtu constant : values()) {
            BY_VALUE[constant.value] = constant;
        }
    }

    private final int value;

    Mtu(int value) {
        this.value = value;
    }

    /** The MTU in bytes (256 to 4096). */
    public int bytes() {
        return 128 << value;
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
    public static Mtu of(int value) {
        Mtu constant = value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
        if (constant == null) {
            throw new IllegalArgumentException("unknown Mtu value: value=" + value);
        }
        return constant;
    }
}
