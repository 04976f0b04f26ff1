package io.isthmus.ffi.cm;

/** {@code enum rdma_port_space}: TCP gives reliable-connected QPs, UDP unreliable datagrams. */
public enum PortSpace {
    IPOIB(0x0002),
    TCP(0x0106),
    UDP(0x0111),
    IB(0x013F);

    private final int value;

    PortSpace(int value) {
        this.value = value;
    }

    /** The C enum value. */
    public int value() {
        return value;
    }

    /** The constant for a C enum value. */
    public static PortSpace of(int value) {
        for (PortSpace constant : values()) {
            if (constant.value == value) {
                return constant;
            }
        }
        throw new IllegalArgumentException("unknown PortSpace value: value=" + value);
    }
}
