package io.isthmus.protocol.control;

/**
 * RDMA_CONNECT response body: the broker's queue pair, already in RTS and connected to the client's, or an error with
 * its reason (RDMA_UNAVAILABLE says why, e.g. "no RDMA devices").
 *
 * <pre>
 *   0           2              4          8          12         16                         32             36     40
 *   +-----------+--------------+----------+----------+----------+--------------------------+--------------+------+-------
 *   | errorCode | capabilities | qpNumber | psn      | lid      | gid (16 raw bytes)       | produceCredits| mtu  | reason
 *   | int16     | int16        | int32    | int32    | int32    |                          | int32        | int32 | string
 *   +-----------+--------------+----------+----------+----------+--------------------------+--------------+------+-------
 * </pre>
 */
public final class RdmaConnectResponse extends ControlFlyweight<RdmaConnectResponse> {
    public static final short EXCLUSIVE_PRODUCE = 1;
    public static final short CONSUME = 1 << 1;
    public static final short SHARED_PRODUCE = 1 << 2;

    public static final int ERROR_CODE_OFFSET = 0;
    public static final int CAPABILITIES_OFFSET = 2;
    public static final int QP_NUMBER_OFFSET = 4;
    public static final int PSN_OFFSET = 8;
    public static final int LID_OFFSET = 12;
    public static final int GID_OFFSET = 16;
    public static final int GID_LENGTH = 16;
    public static final int PRODUCE_CREDITS_OFFSET = 32;
    public static final int MTU_OFFSET = 36;
    public static final int REASON_OFFSET = 40;

    public RdmaConnectResponse() {
        super("RdmaConnect response", REASON_OFFSET, "reason");
    }

    /** Bytes of a response carrying {@code reason} (null on success). */
    public static int length(final String reason) {
        return REASON_OFFSET + ControlCodec.stringLength(reason);
    }

    public short errorCode() {
        return getInt16(ERROR_CODE_OFFSET);
    }

    public RdmaConnectResponse errorCode(final short errorCode) {
        putInt16(ERROR_CODE_OFFSET, errorCode);
        return this;
    }

    /** {@link #EXCLUSIVE_PRODUCE} | {@link #CONSUME} | ..., what this broker serves over RDMA. */
    public short capabilities() {
        return getInt16(CAPABILITIES_OFFSET);
    }

    public RdmaConnectResponse capabilities(final short capabilities) {
        putInt16(CAPABILITIES_OFFSET, capabilities);
        return this;
    }

    public boolean has(final short capability) {
        return (capabilities() & capability) != 0;
    }

    public int qpNumber() {
        return getInt32(QP_NUMBER_OFFSET);
    }

    public RdmaConnectResponse qpNumber(final int qpNumber) {
        putInt32(QP_NUMBER_OFFSET, qpNumber);
        return this;
    }

    public int packetSequenceNumber() {
        return getInt32(PSN_OFFSET);
    }

    public RdmaConnectResponse packetSequenceNumber(final int packetSequenceNumber) {
        putInt32(PSN_OFFSET, packetSequenceNumber);
        return this;
    }

    public int lid() {
        return getInt32(LID_OFFSET);
    }

    public RdmaConnectResponse lid(final int lid) {
        putInt32(LID_OFFSET, lid);
        return this;
    }

    /** A copy of the broker's GID, 16 raw bytes. */
    public byte[] gid() {
        return getBytes(GID_OFFSET, GID_LENGTH);
    }

    /** @throws IllegalArgumentException unless {@code gid} has 16 bytes */
    public RdmaConnectResponse gid(final byte[] gid) {
        putBytes(GID_OFFSET, GID_LENGTH, gid, "gid");
        return this;
    }

    /** WRITE WITH IMMs the client may have unacknowledged (receives the broker keeps posted for it). */
    public int produceCredits() {
        return getInt32(PRODUCE_CREDITS_OFFSET);
    }

    public RdmaConnectResponse produceCredits(final int produceCredits) {
        putInt32(PRODUCE_CREDITS_OFFSET, produceCredits);
        return this;
    }

    /** The path MTU the broker chose ({@code ibv_mtu} enum value). */
    public int mtu() {
        return getInt32(MTU_OFFSET);
    }

    public RdmaConnectResponse mtu(final int mtu) {
        putInt32(MTU_OFFSET, mtu);
        return this;
    }

    /** Why the connect failed, null on success. */
    public String reason() {
        return getString(REASON_OFFSET);
    }

    /** Sets the reason; the room wrapped over must hold {@link #length(String) length(reason)} bytes. */
    public RdmaConnectResponse reason(final String reason) {
        putString(REASON_OFFSET, reason);
        return this;
    }
}
