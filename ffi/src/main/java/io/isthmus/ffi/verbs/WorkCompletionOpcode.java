package io.isthmus.ffi.verbs;

/** {@code enum ibv_wc_opcode}: what a completion completed; receive opcodes have bit 7 set. */
public enum WorkCompletionOpcode {
    SEND(0),
    RDMA_WRITE(1),
    RDMA_READ(2),
    COMP_SWAP(3),
    FETCH_ADD(4),
    BIND_MW(5),
    LOCAL_INV(6),
    TSO(7),
    ATOMIC_WRITE(9),
    RECV(128),
    RECV_RDMA_WITH_IMM(129),
    TM_ADD(130),
    TM_DEL(131),
    TM_SYNC(132),
    TM_RECV(133),
    TM_NO_TAG(134),
    DRIVER1(135),
    DRIVER2(136),
    DRIVER3(137);

    private static final WorkCompletionOpcode[] BY_VALUE;

    static {
        int max = 0;
        for (WorkCompletionOpcode constant : values()) {
            max = Math.max(max, constant.value);
        }
        BY_VALUE = new WorkCompletionOpcode[max + 1];
        for (WorkCompletionOpcode constant : values()) {
            BY_VALUE[constant.value] = constant;
        }
    }

    private final int value;

    WorkCompletionOpcode(int value) {
        this.value = value;
    }

    /** Whether this completes a receive ({@code opcode & IBV_WC_RECV}). */
    public boolean isReceive() {
        return (value & 128) != 0;
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
    public static WorkCompletionOpcode of(int value) {
        WorkCompletionOpcode constant = value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
        if (constant == null) {
            throw new IllegalArgumentException("unknown WorkCompletionOpcode value: value=" + value);
        }
        return constant;
    }
}
