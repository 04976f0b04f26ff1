package io.isthmus.ffi.verbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.isthmus.ffi.layout.IbvWc;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A reusable array of {@code struct ibv_wc} that {@link CompletionQueue#poll} fills; read entries
 * by index. Reading allocates nothing.
 *
 * <p>Soft-RoCE (rxe) reports {@code byte_len == 0} for a received RDMA WRITE WITH IMM: never take
 * a payload length from {@link #byteLength(int)} for that opcode; carry it in the immediate or
 * in the data.
 */
public final class WorkCompletions {
    private static final ValueLayout.OfInt IMM_BIG_ENDIAN = JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);
    /** {@code IBV_WC_WITH_IMM}. */
    public static final int WITH_IMM = 1 << 1;

    private final MemorySegment completions;
    private final int capacity;

    private WorkCompletions(MemorySegment completions, int capacity) {
        this.completions = completions;
        this.capacity = capacity;
    }

    /** Allocates room for {@code capacity} completions (the batch size of one poll). */
    public static WorkCompletions allocate(Arena arena, int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be >= 1: capacity=" + capacity);
        }
        return new WorkCompletions(
                arena.allocate(IbvWc.LAYOUT.byteSize() * capacity, IbvWc.LAYOUT.byteAlignment()), capacity);
    }

    public int capacity() {
        return capacity;
    }

    public MemorySegment segment() {
        return completions;
    }

    public long wrId(int index) {
        return completions.get(JAVA_LONG, offset(index) + IbvWc.WR_ID);
    }

    public WorkCompletionStatus status(int index) {
        return WorkCompletionStatus.of(statusCode(index));
    }

    public int statusCode(int index) {
        return completions.get(JAVA_INT, offset(index) + IbvWc.STATUS);
    }

    public boolean isSuccess(int index) {
        return statusCode(index) == 0;
    }

    /** The opcode; only meaningful when the status is SUCCESS. */
    public WorkCompletionOpcode opcode(int index) {
        return WorkCompletionOpcode.of(completions.get(JAVA_INT, offset(index) + IbvWc.OPCODE));
    }

    public int vendorError(int index) {
        return completions.get(JAVA_INT, offset(index) + IbvWc.VENDOR_ERR);
    }

    /** {@code byte_len}: bytes received by a RECV (see the class note about WRITE WITH IMM). */
    public int byteLength(int index) {
        return completions.get(JAVA_INT, offset(index) + IbvWc.BYTE_LEN);
    }

    /** Whether the completion carries an immediate ({@code wc_flags & IBV_WC_WITH_IMM}). */
    public boolean hasImmediate(int index) {
        return (flags(index) & WITH_IMM) != 0;
    }

    /** The immediate as the sender set it (converted from network byte order). */
    public int immediate(int index) {
        return completions.get(IMM_BIG_ENDIAN, offset(index) + IbvWc.IMM_DATA);
    }

    public int qpNumber(int index) {
        return completions.get(JAVA_INT, offset(index) + IbvWc.QP_NUM);
    }

    public int sourceQpNumber(int index) {
        return completions.get(JAVA_INT, offset(index) + IbvWc.SRC_QP);
    }

    /** {@code wc_flags}. */
    public int flags(int index) {
        return completions.get(JAVA_INT, offset(index) + IbvWc.WC_FLAGS);
    }

    /** A readable summary for messages (allocates). */
    public String describe(int index) {
        return "wr_id=" + wrId(index) + ", status=" + status(index) + ", opcode="
                + completions.get(JAVA_INT, offset(index) + IbvWc.OPCODE) + ", vendor_err=" + vendorError(index)
                + ", byte_len=" + byteLength(index) + ", qp_num=" + qpNumber(index);
    }

    private long offset(int index) {
        if (index < 0 || index >= capacity) {
            throw new IndexOutOfBoundsException("index=" + index + ", capacity=" + capacity);
        }
        return index * IbvWc.SIZE;
    }
}
