package io.isthmus.ffi.verbs;

/** {@code enum ibv_wr_opcode}: the operation of a send-queue work request. */
public enum Opcode {
    RDMA_WRITE(0),
    RDMA_WRITE_WITH_IMM(1),
    SEND(2),
    SEND_WITH_IMM(3),
    RDMA_READ(4),
    ATOMIC_CMP_AND_SWP(5),
    ATOMIC_FETCH_AND_ADD(6),
    LOCAL_INV(7),
    BIND_MW(8),
    SEND_WITH_INV(9),
    TSO(10),
    DRIVER1(11),
    ATOMIC_WRITE(15);

    private static final Opcode[] BY_VALUE;

    static {
        int max = 0;
        for (Opcode constant : values()) {
            max = Math.max(max, constant.value);
        }
        BY_VALUE = new Opcode[max + 1];
        for (Opcode constant : values()) {
            BY_VALUE[constant.value] = constant;
        }
    }

    private final int value;

    Opcode(int value) {
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
    public static Opcode of(int value) {
        Opcode constant = value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
        if (constant == null) {
            throw new IllegalArgumentException("unknown Opcode value: value=" + value);
        }
        return constant;
    }
}
