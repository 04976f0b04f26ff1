package io.isthmus.ffi.verbs;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.isthmus.ffi.layout.IbvAhAttr;
import io.isthmus.ffi.layout.IbvGlobalRoute;
import io.isthmus.ffi.layout.IbvQpAttr;
import java.lang.foreign.MemorySegment;

/**
 * The attributes of one {@code ibv_modify_qp} call ({@code struct ibv_qp_attr} plus the
 * {@code enum ibv_qp_attr_mask} bits): each setter also sets its mask bit.
 */
public final class QueuePairAttributes {
    public static final int STATE = 1;
    public static final int ACCESS_FLAGS = 1 << 3;
    public static final int PKEY_INDEX = 1 << 4;
    public static final int PORT = 1 << 5;
    public static final int QKEY = 1 << 6;
    public static final int AV = 1 << 7;
    public static final int PATH_MTU = 1 << 8;
    public static final int TIMEOUT = 1 << 9;
    public static final int RETRY_CNT = 1 << 10;
    public static final int RNR_RETRY = 1 << 11;
    public static final int RQ_PSN = 1 << 12;
    public static final int MAX_QP_RD_ATOMIC = 1 << 13;
    public static final int MIN_RNR_TIMER = 1 << 15;
    public static final int SQ_PSN = 1 << 16;
    public static final int MAX_DEST_RD_ATOMIC = 1 << 17;
    public static final int CAP = 1 << 19;
    public static final int DEST_QPN = 1 << 20;

    private int mask;
    private QpState state;
    private int accessFlags;
    private int pkeyIndex;
    private int port;
    private int qkey;
    private Mtu pathMtu;
    private int timeout;
    private int retryCount;
    private int rnrRetry;
    private int rqPsn;
    private int sqPsn;
    private int maxRdAtomic;
    private int maxDestRdAtomic;
    private int minRnrTimer;
    private int destQpNumber;
    private Gid destGid;
    private int sgidIndex;
    private int hopLimit = 1;
    private int dlid;
    private int serviceLevel;
    private int avPort;

    public QueuePairAttributes state(QpState state) {
        this.state = state;
        mask |= STATE;
        return this;
    }

    public QueuePairAttributes accessFlags(int accessFlags) {
        this.accessFlags = accessFlags;
        mask |= ACCESS_FLAGS;
        return this;
    }

    public QueuePairAttributes pkeyIndex(int pkeyIndex) {
        this.pkeyIndex = pkeyIndex;
        mask |= PKEY_INDEX;
        return this;
    }

    public QueuePairAttributes port(int port) {
        this.port = port;
        mask |= PORT;
        return this;
    }

    public QueuePairAttributes qkey(int qkey) {
        this.qkey = qkey;
        mask |= QKEY;
        return this;
    }

    public QueuePairAttributes pathMtu(Mtu pathMtu) {
        this.pathMtu = pathMtu;
        mask |= PATH_MTU;
        return this;
    }

    /** Local ACK timeout: 4.096 us * 2^timeout. */
    public QueuePairAttributes timeout(int timeout) {
        this.timeout = timeout;
        mask |= TIMEOUT;
        return this;
    }

    public QueuePairAttributes retryCount(int retryCount) {
        this.retryCount = retryCount;
        mask |= RETRY_CNT;
        return this;
    }

    /** RNR retries (7 = infinite). */
    public QueuePairAttributes rnrRetry(int rnrRetry) {
        this.rnrRetry = rnrRetry;
        mask |= RNR_RETRY;
        return this;
    }

    public QueuePairAttributes rqPsn(int rqPsn) {
        this.rqPsn = rqPsn;
        mask |= RQ_PSN;
        return this;
    }

    public QueuePairAttributes sqPsn(int sqPsn) {
        this.sqPsn = sqPsn;
        mask |= SQ_PSN;
        return this;
    }

    /** Outstanding RDMA READs/atomics this QP may issue. */
    public QueuePairAttributes maxRdAtomic(int maxRdAtomic) {
        this.maxRdAtomic = maxRdAtomic;
        mask |= MAX_QP_RD_ATOMIC;
        return this;
    }

    /** Outstanding RDMA READs/atomics this QP accepts as target. */
    public QueuePairAttributes maxDestRdAtomic(int maxDestRdAtomic) {
        this.maxDestRdAtomic = maxDestRdAtomic;
        mask |= MAX_DEST_RD_ATOMIC;
        return this;
    }

    public QueuePairAttributes minRnrTimer(int minRnrTimer) {
        this.minRnrTimer = minRnrTimer;
        mask |= MIN_RNR_TIMER;
        return this;
    }

    public QueuePairAttributes destQpNumber(int destQpNumber) {
        this.destQpNumber = destQpNumber;
        mask |= DEST_QPN;
        return this;
    }

    /**
     * The address vector ({@code ah_attr}): a global route to {@code dgid} from local GID
     * {@code sgidIndex} (required on RoCE), or a LID route when {@code dgid} is null.
     */
    public QueuePairAttributes addressVector(Gid dgid, int sgidIndex, int dlid, int port) {
        this.destGid = dgid;
        this.sgidIndex = sgidIndex;
        this.dlid = dlid;
        this.avPort = port;
        mask |= AV;
        return this;
    }

    /** The {@code ibv_qp_attr_mask} accumulated so far. */
    public int mask() {
        return mask;
    }

    /** Writes the attributes into a zeroed {@code ibv_qp_attr}. */
    void writeTo(MemorySegment attr) {
        if (state != null) {
            attr.set(JAVA_INT, IbvQpAttr.QP_STATE, state.value());
        }
        if (pathMtu != null) {
            attr.set(JAVA_INT, IbvQpAttr.PATH_MTU, pathMtu.value());
        }
        attr.set(JAVA_INT, IbvQpAttr.QKEY, qkey);
        attr.set(JAVA_INT, IbvQpAttr.RQ_PSN, rqPsn);
        attr.set(JAVA_INT, IbvQpAttr.SQ_PSN, sqPsn);
        attr.set(JAVA_INT, IbvQpAttr.DEST_QP_NUM, destQpNumber);
        attr.set(JAVA_INT, IbvQpAttr.QP_ACCESS_FLAGS, accessFlags);
        attr.set(JAVA_SHORT, IbvQpAttr.PKEY_INDEX, (short) pkeyIndex);
        attr.set(JAVA_BYTE, IbvQpAttr.MAX_RD_ATOMIC, (byte) maxRdAtomic);
        attr.set(JAVA_BYTE, IbvQpAttr.MAX_DEST_RD_ATOMIC, (byte) maxDestRdAtomic);
        attr.set(JAVA_BYTE, IbvQpAttr.MIN_RNR_TIMER, (byte) minRnrTimer);
        attr.set(JAVA_BYTE, IbvQpAttr.PORT_NUM, (byte) port);
        attr.set(JAVA_BYTE, IbvQpAttr.TIMEOUT, (byte) timeout);
        attr.set(JAVA_BYTE, IbvQpAttr.RETRY_CNT, (byte) retryCount);
        attr.set(JAVA_BYTE, IbvQpAttr.RNR_RETRY, (byte) rnrRetry);
        if ((mask & AV) != 0) {
            long ah = IbvQpAttr.AH_ATTR;
            attr.set(JAVA_SHORT, ah + IbvAhAttr.DLID, (short) dlid);
            attr.set(JAVA_BYTE, ah + IbvAhAttr.SL, (byte) serviceLevel);
            attr.set(JAVA_BYTE, ah + IbvAhAttr.PORT_NUM, (byte) avPort);
            if (destGid != null) {
                attr.set(JAVA_BYTE, ah + IbvAhAttr.IS_GLOBAL, (byte) 1);
                destGid.write(attr, ah + IbvAhAttr.GRH + IbvGlobalRoute.DGID);
                attr.set(JAVA_BYTE, ah + IbvAhAttr.GRH + IbvGlobalRoute.SGID_INDEX, (byte) sgidIndex);
                attr.set(JAVA_BYTE, ah + IbvAhAttr.GRH + IbvGlobalRoute.HOP_LIMIT, (byte) hopLimit);
            }
        }
    }

    @Override
    public String toString() {
        return "attr_mask=0x" + Integer.toHexString(mask) + ", qp_state=" + state + ", path_mtu=" + pathMtu
                + ", dest_qp_num=" + destQpNumber + ", rq_psn=" + rqPsn + ", sq_psn=" + sqPsn + ", port=" + port
                + ", access=" + AccessFlags.toString(accessFlags) + ", dgid=" + destGid + ", sgid_index="
                + sgidIndex + ", max_rd_atomic=" + maxRdAtomic + ", max_dest_rd_atomic=" + maxDestRdAtomic;
    }
}
