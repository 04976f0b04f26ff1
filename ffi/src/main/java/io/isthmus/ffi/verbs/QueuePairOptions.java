package io.isthmus.ffi.verbs;

import io.isthmus.ffi.layout.IbvQpCap;
import io.isthmus.ffi.layout.IbvQpInitAttr;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * What to create a queue pair with ({@code struct ibv_qp_init_attr}): a mutable builder, read when
 * the QP is created.
 */
public final class QueuePairOptions {
    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private SharedReceiveQueue srq;
    private QpType type = QpType.RC;
    private int maxSendWr = 64;
    private int maxRecvWr = 64;
    private int maxSendSge = 1;
    private int maxRecvSge = 1;
    private int maxInlineData;
    private boolean signalAll;

    /** Both queues complete into {@code cq}. */
    public QueuePairOptions completionQueue(CompletionQueue cq) {
        this.sendCq = cq;
        this.recvCq = cq;
        return this;
    }

    public QueuePairOptions sendCompletionQueue(CompletionQueue cq) {
        this.sendCq = cq;
        return this;
    }

    public QueuePairOptions receiveCompletionQueue(CompletionQueue cq) {
        this.recvCq = cq;
        return this;
    }

    /** Receives come from {@code srq} instead of the QP's own receive queue. */
    public QueuePairOptions sharedReceiveQueue(SharedReceiveQueue srq) {
        this.srq = srq;
        return this;
    }

    public QueuePairOptions type(QpType type) {
        this.type = type;
        return this;
    }

    public QueuePairOptions maxSendWr(int maxSendWr) {
        this.maxSendWr = maxSendWr;
        return this;
    }

    public QueuePairOptions maxRecvWr(int maxRecvWr) {
        this.maxRecvWr = maxRecvWr;
        return this;
    }

    public QueuePairOptions maxSendSge(int maxSendSge) {
        this.maxSendSge = maxSendSge;
        return this;
    }

    public QueuePairOptions maxRecvSge(int maxRecvSge) {
        this.maxRecvSge = maxRecvSge;
        return this;
    }

    public QueuePairOptions maxInlineData(int maxInlineData) {
        this.maxInlineData = maxInlineData;
        return this;
    }

    /** {@code sq_sig_all}: every send request generates a completion, whatever its flags say. */
    public QueuePairOptions signalAll(boolean signalAll) {
        this.signalAll = signalAll;
        return this;
    }

    public CompletionQueue sendCompletionQueue() {
        return sendCq;
    }

    public CompletionQueue receiveCompletionQueue() {
        return recvCq;
    }

    public SharedReceiveQueue sharedReceiveQueue() {
        return srq;
    }

    public QpType type() {
        return type;
    }

    /** Writes an {@code ibv_qp_init_attr} into {@code attr} (which must be zeroed). */
    public void writeTo(MemorySegment attr) {
        if (sendCq == null || recvCq == null) {
            throw new IllegalStateException("a queue pair needs a send and a receive completion queue: " + this);
        }
        attr.set(ValueLayout.ADDRESS, IbvQpInitAttr.SEND_CQ, sendCq.address());
        attr.set(ValueLayout.ADDRESS, IbvQpInitAttr.RECV_CQ, recvCq.address());
        attr.set(ValueLayout.ADDRESS, IbvQpInitAttr.SRQ, srq == null ? MemorySegment.NULL : srq.address());
        attr.set(ValueLayout.JAVA_INT, IbvQpInitAttr.CAP + IbvQpCap.MAX_SEND_WR, maxSendWr);
        attr.set(ValueLayout.JAVA_INT, IbvQpInitAttr.CAP + IbvQpCap.MAX_RECV_WR, srq == null ? maxRecvWr : 0);
        attr.set(ValueLayout.JAVA_INT, IbvQpInitAttr.CAP + IbvQpCap.MAX_SEND_SGE, maxSendSge);
        attr.set(ValueLayout.JAVA_INT, IbvQpInitAttr.CAP + IbvQpCap.MAX_RECV_SGE, srq == null ? maxRecvSge : 0);
        attr.set(ValueLayout.JAVA_INT, IbvQpInitAttr.CAP + IbvQpCap.MAX_INLINE_DATA, maxInlineData);
        attr.set(ValueLayout.JAVA_INT, IbvQpInitAttr.QP_TYPE, type.value());
        attr.set(ValueLayout.JAVA_INT, IbvQpInitAttr.SQ_SIG_ALL, signalAll ? 1 : 0);
    }

    @Override
    public String toString() {
        return "qp_type=" + type + ", max_send_wr=" + maxSendWr + ", max_recv_wr=" + maxRecvWr + ", max_send_sge="
                + maxSendSge + ", max_recv_sge=" + maxRecvSge + ", max_inline_data=" + maxInlineData
                + ", sq_sig_all=" + signalAll + ", srq=" + (srq != null);
    }
}
