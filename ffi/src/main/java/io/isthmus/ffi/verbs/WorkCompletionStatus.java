package io.isthmus.ffi.verbs;

/** {@code enum ibv_wc_status}: the outcome of a work request ({@code IBV_WC_*}). */
public enum WorkCompletionStatus {
    SUCCESS(0),
    LOC_LEN_ERR(1),
    LOC_QP_OP_ERR(2),
    LOC_EEC_OP_ERR(3),
    LOC_PROT_ERR(4),
    WR_FLUSH_ERR(5),
    MW_BIND_ERR(6),
    BAD_RESP_ERR(7),
    LOC_ACCESS_ERR(8),
    REM_INV_REQ_ERR(9),
    REM_ACCESS_ERR(10),
    REM_OP_ERR(11),
    RETRY_EXC_ERR(12),
    RNR_RETRY_EXC_ERR(13),
    LOC_RDD_VIOL_ERR(14),
    REM_INV_RD_REQ_ERR(15),
    REM_ABORT_ERR(16),
    INV_EECN_ERR(17),
    INV_EEC_STATE_ERR(18),
    FATAL_ERR(19),
    RESP_TIMEOUT_ERR(20),
    GENERAL_ERR(21),
    TM_ERR(22),
    TM_RNDV_INCOMPLETE(23);

    private static final WorkCompletionStatus[] BY_VALUE;

    static {
        int max = 0;
        for (WorkCompletionStatus constant : values()) {
            max = Math.max(max, constant.value);
        }
        BY_VALUE = new WorkCompletionStatus[max + 1];
        for (WorkCompletionStatus constant : values()) {
            BY_VALUE[constant.value] = constant;
        }
    }

    private final int value;

    WorkCompletionStatus(int value) {
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
    public static WorkCompletionStatus of(int value) {
        WorkCompletionStatus constant = value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
        if (constant == null) {
            throw new IllegalArgumentException("unknown WorkCompletionStatus value: value=" + value);
        }
        return constant;
    }
}
