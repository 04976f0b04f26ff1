package io.isthmus.protocol.control;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

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
 *
 * @param qpNumber the client QP's number
 * @param packetSequenceNumber the first PSN the client will send with (24 bits)
 * @param lid the port's LID (0 on RoCE)
 * @param gid the client's GID, 16 raw bytes
 * @param ackCredits receives the client keeps posted for the broker's acknowledgements; the broker never has more
 *     unanswered SENDs outstanding
 * @param mtu the client port's active MTU as the {@code ibv_mtu} enum value; the path uses the smaller of both
 */
public record RdmaConnectRequest(int qpNumber, int packetSequenceNumber, int lid, byte[] gid, int ackCredits, int mtu)
        implements ControlMessage {
    public static final int QP_NUMBER_OFFSET = 0;
    public static final int PSN_OFFSET = 4;
    public static final int LID_OFFSET = 8;
    public static final int GID_OFFSET = 12;
    public static final int GID_LENGTH = 16;
    public static final int ACK_CREDITS_OFFSET = 28;
    public static final int MTU_OFFSET = 32;
    public static final int LENGTH = 36;

    public RdmaConnectRequest {
        if (gid.length != GID_LENGTH) {
            throw new IllegalArgumentException("a GID has 16 bytes: length=" + gid.length);
        }
        gid = gid.clone();
    }

    @Override
    public byte[] gid() {
        return gid.clone();
    }

    @Override
    public int encodedLength() {
        return LENGTH;
    }

    @Override
    public int encode(final MemorySegment segment, final long offset) {
        segment.set(ControlCodec.INT32, offset + QP_NUMBER_OFFSET, qpNumber);
        segment.set(ControlCodec.INT32, offset + PSN_OFFSET, packetSequenceNumber);
        segment.set(ControlCodec.INT32, offset + LID_OFFSET, lid);
        MemorySegment.copy(gid, 0, segment, ValueLayout.JAVA_BYTE, offset + GID_OFFSET, GID_LENGTH);
        segment.set(ControlCodec.INT32, offset + ACK_CREDITS_OFFSET, ackCredits);
        segment.set(ControlCodec.INT32, offset + MTU_OFFSET, mtu);
        return LENGTH;
    }

    public static RdmaConnectRequest decode(final MemorySegment segment, final long offset) {
        ControlCodec.requireLength(segment, offset, LENGTH, "RdmaConnect request");
        final byte[] gid = new byte[GID_LENGTH];
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, offset + GID_OFFSET, gid, 0, GID_LENGTH);
        return new RdmaConnectRequest(
                segment.get(ControlCodec.INT32, offset + QP_NUMBER_OFFSET),
                segment.get(ControlCodec.INT32, offset + PSN_OFFSET),
                segment.get(ControlCodec.INT32, offset + LID_OFFSET),
                gid,
                segment.get(ControlCodec.INT32, offset + ACK_CREDITS_OFFSET),
                segment.get(ControlCodec.INT32, offset + MTU_OFFSET));
    }
}
