package io.isthmus.ffi.layout;

import static io.isthmus.ffi.layout.CLayouts.INT;
import static io.isthmus.ffi.layout.CLayouts.POINTER;
import static io.isthmus.ffi.layout.CLayouts.U16;
import static io.isthmus.ffi.layout.CLayouts.U32;
import static io.isthmus.ffi.layout.CLayouts.U64;
import static io.isthmus.ffi.layout.CLayouts.anonymous;
import static io.isthmus.ffi.layout.CLayouts.offsetOf;
import static io.isthmus.ffi.layout.CLayouts.struct;
import static io.isthmus.ffi.layout.CLayouts.union;

import java.lang.foreign.StructLayout;

/**
 * {@code struct ibv_send_wr}: a send-queue work request.
 *
 * <pre>
 *  0       8      16        24       28       32           36         40
 *  +-------+------+---------+--------+--------+------------+----------+
 *  | wr_id | next | sg_list | num_sge| opcode | send_flags | imm_data |
 *  +-------+------+---------+--------+--------+------------+----------+
 *  40: wr (union)  rdma   { remote_addr @40, rkey @48 }
 *                  atomic { remote_addr @40, compare_add @48, swap @56, rkey @64 }
 *                  ud     { ah @40, remote_qpn @48, remote_qkey @52 }
 *  72: qp_type.xrc.remote_srqn    80: bind_mw / tso (union)        128: end
 * </pre>
 */
public final class IbvSendWr {
    public static final StructLayout LAYOUT = struct(
            "struct ibv_send_wr",
            U64.withName("wr_id"),
            POINTER.withName("next"),
            POINTER.withName("sg_list"),
            INT.withName("num_sge"),
            INT.withName("opcode"),
            U32.withName("send_flags"),
            union(anonymous("imm"), U32.withName("imm_data"), U32.withName("invalidate_rkey")),
            union(
                    "wr",
                    struct("rdma", U64.withName("remote_addr"), U32.withName("rkey")),
                    struct(
                            "atomic",
                            U64.withName("remote_addr"),
                            U64.withName("compare_add"),
                            U64.withName("swap"),
                            U32.withName("rkey")),
                    struct("ud", POINTER.withName("ah"), U32.withName("remote_qpn"), U32.withName("remote_qkey"))),
            union("qp_type", struct("xrc", U32.withName("remote_srqn"))),
            union(
                    anonymous("ops"),
                    struct(
                            "bind_mw",
                            POINTER.withName("mw"),
                            U32.withName("rkey"),
                            struct(
                                    "bind_info",
                                    POINTER.withName("mr"),
                                    U64.withName("addr"),
                                    U64.withName("length"),
                                    U32.withName("mw_access_flags"))),
                    struct("tso", POINTER.withName("hdr"), U16.withName("hdr_sz"), U16.withName("mss"))));

    public static final long WR_ID = offsetOf(LAYOUT, "wr_id");
    public static final long NEXT = offsetOf(LAYOUT, "next");
    public static final long SG_LIST = offsetOf(LAYOUT, "sg_list");
    public static final long NUM_SGE = offsetOf(LAYOUT, "num_sge");
    public static final long OPCODE = offsetOf(LAYOUT, "opcode");
    public static final long SEND_FLAGS = offsetOf(LAYOUT, "send_flags");
    public static final long IMM_DATA = offsetOf(LAYOUT, "imm_data");
    public static final long WR_RDMA_REMOTE_ADDR = offsetOf(LAYOUT, "wr.rdma.remote_addr");
    public static final long WR_RDMA_RKEY = offsetOf(LAYOUT, "wr.rdma.rkey");
    public static final long WR_ATOMIC_REMOTE_ADDR = offsetOf(LAYOUT, "wr.atomic.remote_addr");
    public static final long WR_ATOMIC_COMPARE_ADD = offsetOf(LAYOUT, "wr.atomic.compare_add");
    public static final long WR_ATOMIC_SWAP = offsetOf(LAYOUT, "wr.atomic.swap");
    public static final long WR_ATOMIC_RKEY = offsetOf(LAYOUT, "wr.atomic.rkey");
    public static final long SIZE = LAYOUT.byteSize();

    private IbvSendWr() {}
}
