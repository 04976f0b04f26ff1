package io.isthmus.ffi.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import io.isthmus.ffi.NativeLibrary;
import io.isthmus.ffi.NativeResource;
import io.isthmus.ffi.VerbsException;
import io.isthmus.ffi.layout.IbvQp;
import io.isthmus.ffi.layout.IbvQpAttr;
import io.isthmus.ffi.layout.IbvQpCap;
import io.isthmus.ffi.layout.IbvQpInitAttr;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.function.Consumer;

/**
 * A queue pair ({@code struct ibv_qp}): the state machine (RESET, INIT, RTR, RTS, ERR) and the
 * data path. {@link #postSend} and {@link #postReceive} call the provider's {@code post_send} /
 * {@code post_recv} through handles read from {@code qp->context->ops} and bound once, here, into
 * final fields; they allocate nothing.
 */
public final class QueuePair extends NativeResource {
    private final MemorySegment qp;
    private final int qpNumber;
    private final int maxInlineData;
    private final String deviceName;
    private final MethodHandle postSend;
    private final MethodHandle postRecv;
    private final MemorySegment badSendWr;
    private final MemorySegment badRecvWr;
    private final Consumer<MemorySegment> destroyer;

    QueuePair(
            ProtectionDomain pd,
            QueuePairOptions options,
            MemorySegment qp,
            int maxInlineData,
            Consumer<MemorySegment> destroyer,
            boolean critical) {
        this(
                pd,
                options.sendCompletionQueue(),
                options.receiveCompletionQueue(),
                options.sharedReceiveQueue(),
                qp,
                maxInlineData,
                destroyer,
                critical,
                pd.context().arena(),
                pd.context().deviceName());
    }

    private QueuePair(
            ProtectionDomain pd,
            CompletionQueue sendCq,
            CompletionQueue recvCq,
            SharedReceiveQueue srq,
            MemorySegment qp,
            int maxInlineData,
            Consumer<MemorySegment> destroyer,
            boolean critical,
            Arena arena,
            String deviceName) {
        super("ibv_qp", pd, sendCq, recvCq == sendCq ? null : recvCq, srq);
        this.qp = qp.reinterpret(IbvQp.LAYOUT.byteSize());
        this.qpNumber = this.qp.get(JAVA_INT, IbvQp.QP_NUM);
        this.maxInlineData = maxInlineData;
        this.deviceName = deviceName;
        this.destroyer = destroyer;
        MemorySegment context = this.qp.get(ADDRESS, IbvQp.CONTEXT);
        this.postSend = ProviderOps.postSend(context, this.qp, critical);
        this.postRecv = ProviderOps.postRecv(context, this.qp, critical);
        this.badSendWr = arena.allocate(ADDRESS);
        this.badRecvWr = arena.allocate(ADDRESS);
    }

    /**
     * Test hook: a QP over a hand-made {@code ibv_qp} whose context's ops point at upcall stubs
     * (bound non-critical, since a critical downcall must not call back into Java).
     */
    static QueuePair overFake(MemorySegment fakeQp, Arena arena) {
        return new QueuePair(null, null, null, null, fakeQp, 0, qp -> {}, false, arena, "fake");
    }

    /** {@code qp_num}: what the peer needs as its destination QP number. */
    public int qpNumber() {
        return qpNumber;
    }

    /** The inline capacity the provider granted ({@code cap.max_inline_data} after creation). */
    public int maxInlineData() {
        return maxInlineData;
    }

    /** The native {@code ibv_qp*}. */
    public MemorySegment address() {
        checkOpen();
        return qp;
    }

    /**
     * {@code ibv_post_send} of the first {@code count} requests of {@code requests}, as one chain.
     * Allocation-free.
     *
     * @throws VerbsException with the error code the provider returned and the failing request
     */
    public void postSend(SendWorkRequests requests, int count) {
        checkOpen();
        MemorySegment head = requests.chain(count);
        int rc;
        try {
            rc = (int) postSend.invokeExact(head, badSendWr);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc != 0) {
            throw postFailure(
                    "ibv_post_send",
                    rc,
                    requests.indexOf(badSendWr.get(ADDRESS, 0).address()),
                    count);
        }
    }

    /** {@code ibv_post_recv} of the first {@code count} requests of {@code requests}. Allocation-free. */
    public void postReceive(ReceiveWorkRequests requests, int count) {
        checkOpen();
        MemorySegment head = requests.chain(count);
        int rc;
        try {
            rc = (int) postRecv.invokeExact(head, badRecvWr);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc != 0) {
            throw postFailure(
                    "ibv_post_recv",
                    rc,
                    requests.indexOf(badRecvWr.get(ADDRESS, 0).address()),
                    count);
        }
    }

    private VerbsException postFailure(String verb, int rc, int badIndex, int count) {
        return new VerbsException(verb, Math.abs(rc), details() + ", bad_wr_index=" + badIndex + ", count=" + count);
    }

    /** {@code ibv_modify_qp} with the attributes and mask of {@code attributes}. */
    public void modify(QueuePairAttributes attributes) {
        checkOpen();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment attr = call.allocate(IbvQpAttr.LAYOUT);
            attributes.writeTo(attr);
            int rc = (int) Ibv.MODIFY_QP.invokeExact(qp, attr, attributes.mask());
            Calls.checkCode(rc, "ibv_modify_qp", details() + ", " + attributes);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** RESET to INIT: port, P_Key index 0 and the access rights remote peers get on this QP. */
    public void moveToInit(int port, int accessFlags) {
        modify(new QueuePairAttributes()
                .state(QpState.INIT)
                .pkeyIndex(0)
                .port(port)
                .accessFlags(accessFlags));
    }

    /**
     * INIT to RTR (ready to receive) for an RC QP connected by hand.
     *
     * @param remote the peer's QP number, first PSN and GID
     * @param sgidIndex the local GID index (on RoCE v2 usually the IPv4-mapped one)
     * @param maxDestRdAtomic RDMA READs/atomics the peer may have outstanding against us
     */
    public void moveToReadyToReceive(QueuePairAddress remote, Mtu mtu, int port, int sgidIndex, int maxDestRdAtomic) {
        Gid gid = remote.gid() == null || remote.gid().isZero() ? null : remote.gid();
        modify(new QueuePairAttributes()
                .state(QpState.RTR)
                .pathMtu(mtu)
                .destQpNumber(remote.qpNumber())
                .rqPsn(remote.packetSequenceNumber())
                .maxDestRdAtomic(maxDestRdAtomic)
                .minRnrTimer(12)
                .addressVector(gid, sgidIndex, remote.lid(), port));
    }

    /** RTR to RTS (ready to send) with the usual RC timers and infinite RNR retry. */
    public void moveToReadyToSend(int sqPsn, int maxRdAtomic) {
        modify(new QueuePairAttributes()
                .state(QpState.RTS)
                .sqPsn(sqPsn)
                .timeout(14)
                .retryCount(7)
                .rnrRetry(7)
                .maxRdAtomic(maxRdAtomic));
    }

    /** Moves to ERR: outstanding and later posted requests complete with WR_FLUSH_ERR. */
    public void moveToError() {
        modify(new QueuePairAttributes().state(QpState.ERR));
    }

    /** {@code ibv_query_qp}. */
    public QueuePairStatus query() {
        checkOpen();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment attr = call.allocate(IbvQpAttr.LAYOUT);
            MemorySegment init = call.allocate(IbvQpInitAttr.LAYOUT);
            int mask = QueuePairAttributes.STATE
                    | QueuePairAttributes.PATH_MTU
                    | QueuePairAttributes.DEST_QPN
                    | QueuePairAttributes.RQ_PSN
                    | QueuePairAttributes.SQ_PSN
                    | QueuePairAttributes.ACCESS_FLAGS
                    | QueuePairAttributes.MAX_QP_RD_ATOMIC
                    | QueuePairAttributes.MAX_DEST_RD_ATOMIC
                    | QueuePairAttributes.PORT
                    | QueuePairAttributes.CAP;
            int rc = (int) Ibv.QUERY_QP.invokeExact(qp, attr, mask, init);
            Calls.checkCode(rc, "ibv_query_qp", details());
            int mtu = attr.get(JAVA_INT, IbvQpAttr.PATH_MTU);
            return new QueuePairStatus(
                    QpState.of(attr.get(JAVA_INT, IbvQpAttr.QP_STATE)),
                    mtu == 0 ? null : Mtu.of(mtu),
                    attr.get(JAVA_INT, IbvQpAttr.DEST_QP_NUM),
                    attr.get(JAVA_INT, IbvQpAttr.RQ_PSN),
                    attr.get(JAVA_INT, IbvQpAttr.SQ_PSN),
                    attr.get(JAVA_INT, IbvQpAttr.QP_ACCESS_FLAGS),
                    Byte.toUnsignedInt(attr.get(JAVA_BYTE, IbvQpAttr.MAX_RD_ATOMIC)),
                    Byte.toUnsignedInt(attr.get(JAVA_BYTE, IbvQpAttr.MAX_DEST_RD_ATOMIC)),
                    Byte.toUnsignedInt(attr.get(JAVA_BYTE, IbvQpAttr.PORT_NUM)),
                    attr.get(JAVA_INT, IbvQpAttr.CAP + IbvQpCap.MAX_SEND_WR),
                    attr.get(JAVA_INT, IbvQpAttr.CAP + IbvQpCap.MAX_INLINE_DATA));
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    @Override
    protected String details() {
        return "device=" + deviceName + ", qp_num=" + qpNumber;
    }

    @Override
    protected void release() {
        destroyer.accept(qp);
    }
}
