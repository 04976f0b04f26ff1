package io.isthmus.protocol.control;

/**
 * RDMA_CONNECT request body: the client's RC queue pair (in INIT), for a manual address exchange.
 *
 * <pre>
 *   0          4          8          12                                28                32         36
 *   +----------+----------+----------+---------------------------------+-----------------+----------+
 *   | qpNumber | psn      | lid      | gid (16 raw bytes)              | ackCredits      | mtu      |
 *   | int32    | int32    | int32    |                                 | int32           | int32    |
 *   +----------+----------+----------+---------------------------------+-----------------+----------+
 * </pre>
 */
public final class RdmaConnectRequest extends ControlFlyweight<RdmaConnectRequest> {
    public static final int QP_NUMBER_OFFSET = 0;
    public static final int PSN_OFFSET = 4;
    public static final int LID_OFFSET = 8;
    public static final int GID_OFFSET = 12;
    public static final int GID_LENGTH = 16;
    public static final int ACK_CREDITS_OFFSET = 28;
    public static final int MTU_OFFSET = 32;
    public static final int LENGTH = 36;

    public RdmaConnectRequest() {
        super("RdmaConnect request", LENGTH, null);
    }

    /** The client QP's number. */
    public int qpNumber() {
        return getInt32(QP_NUMBER_OFFSET);
    }

    public RdmaConnectRequest qpNumber(final int qpNumber) {
        putInt32(QP_NUMBER_OFFSET, qpNumber);
        return this;
    }

    /** The first PSN the client will send with (24 bits). */
    public int packetSequenceNumber() {
        return getInt32(PSN_OFFSET);
    }

    public RdmaConnectRequest packetSequenceNumber(final int packetSequenceNumber) {
        putInt32(PSN_OFFSET, packetSequenceNumber);
        return this;
    }

    /** The port's LID (0 on RoCE). */
    public int lid() {
        return getInt32(LID_OFFSET);
    }

    public RdmaConnectRequest lid(final int lid) {
        putInt32(LID_OFFSET, lid);
        return this;
    }

    /** A copy of the client's GID, 16 raw bytes. */
    public byte[] gid() {
        return getBytes(GID_OFFSET, GID_LENGTH);
    }

    /** @throws IllegalArgumentException unless {@code gid} has 16 bytes */
    public RdmaConnectRequest gid(final byte[] gid) {
        putBytes(GID_OFFSET, GID_LENGTH, gid, "gid");
        return this;
    }

    /** Receives the client keeps posted for the broker's acknowledgements; never more unanswered SENDs. */
    public int ackCredits() {
        return getInt32(ACK_CREDITS_OFFSET);
    }

    public RdmaConnectRequest ackCredits(final int ackCredits) {
        putInt32(ACK_CREDITS_OFFSET, ackCredits);
        return this;
    }

    /** The client port's active MTU as the {@code ibv_mtu} enum value; the path uses the smaller of both. */
    public int mtu() {
        return getInt32(MTU_OFFSET);
    }

    public RdmaConnectRequest mtu(final int mtu) {
        putInt32(MTU_OFFSET, mtu);
        return this;
    }
}
