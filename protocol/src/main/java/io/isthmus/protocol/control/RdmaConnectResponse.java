package io.isthmus.protocol.control;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

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
 *
 * @param capabilities {@link #EXCLUSIVE_PRODUCE} | {@link #CONSUME} | ..., what this broker serves over RDMA
 * @param produceCredits WRITE WITH IMMs the client may have unacknowledged (receives the broker keeps posted for it)
 * @param mtu the path MTU the broker chose ({@code ibv_mtu} enum value)
 * @param reason why the connect failed, null on success
 */
public record RdmaConnectResponse(
        short errorCode,
        short capabilities,
        int qpNumber,
        int packetSequenceNumber,
        int lid,
        byte[] gid,
        int produceCredits,
        int mtu,
        String reason)
        implements ControlMessage {
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

    public RdmaConnectResponse {
        if (gid.length != GID_LENGTH) {
            throw new IllegalArgumentException("a GID has 16 bytes: length=" + gid.length);
        }
        gid = gid.clone();
    }

    /** A failed connect: only the code and the reason mean anything. */
    public static RdmaConnectResponse error(final short errorCode, final String reason) {
        return new RdmaConnectResponse(errorCode, (short) 0, 0, 0, 0, new byte[GID_LENGTH], 0, 0, reason);
    }

    @Override
    public byte[] gid() {
        return gid.clone();
    }

    public boolean has(final short capability) {
        return (capabilities & capability) != 0;
    }

    @Override
    public int encodedLength() {
        return REASON_OFFSET + ControlCodec.stringLength(reason);
    }

    @Override
    public int encode(final MemorySegment segment, final long offset) {
        segment.set(ControlCodec.INT16, offset + ERROR_CODE_OFFSET, errorCode);
        segment.set(ControlCodec.INT16, offset + CAPABILITIES_OFFSET, capabilities);
        segment.set(ControlCodec.INT32, offset + QP_NUMBER_OFFSET, qpNumber);
        segment.set(ControlCodec.INT32, offset + PSN_OFFSET, packetSequenceNumber);
        segment.set(ControlCodec.INT32, offset + LID_OFFSET, lid);
        MemorySegment.copy(gid, 0, segment, ValueLayout.JAVA_BYTE, offset + GID_OFFSET, GID_LENGTH);
        segment.set(ControlCodec.INT32, offset + PRODUCE_CREDITS_OFFSET, produceCredits);
        segment.set(ControlCodec.INT32, offset + MTU_OFFSET, mtu);
        return REASON_OFFSET + ControlCodec.putString(segment, offset + REASON_OFFSET, reason);
    }

    public static RdmaConnectResponse decode(final MemorySegment segment, final long offset) {
        ControlCodec.requireLength(segment, offset, REASON_OFFSET + Short.BYTES, "RdmaConnect response");
        final byte[] gid = new byte[GID_LENGTH];
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, offset + GID_OFFSET, gid, 0, GID_LENGTH);
        return new RdmaConnectResponse(
                segment.get(ControlCodec.INT16, offset + ERROR_CODE_OFFSET),
                segment.get(ControlCodec.INT16, offset + CAPABILITIES_OFFSET),
                segment.get(ControlCodec.INT32, offset + QP_NUMBER_OFFSET),
                segment.get(ControlCodec.INT32, offset + PSN_OFFSET),
                segment.get(ControlCodec.INT32, offset + LID_OFFSET),
                gid,
                segment.get(ControlCodec.INT32, offset + PRODUCE_CREDITS_OFFSET),
                segment.get(ControlCodec.INT32, offset + MTU_OFFSET),
                ControlCodec.getString(segment, offset + REASON_OFFSET));
    }
}
