package io.isthmus.ffi.layout;

import static io.isthmus.ffi.layout.CLayouts.INT;
import static io.isthmus.ffi.layout.CLayouts.U16;
import static io.isthmus.ffi.layout.CLayouts.U32;
import static io.isthmus.ffi.layout.CLayouts.U64;
import static io.isthmus.ffi.layout.CLayouts.U8;
import static io.isthmus.ffi.layout.CLayouts.anonymous;
import static io.isthmus.ffi.layout.CLayouts.offsetOf;
import static io.isthmus.ffi.layout.CLayouts.struct;
import static io.isthmus.ffi.layout.CLayouts.union;

import java.lang.foreign.StructLayout;

/**
 * {@code struct ibv_wc}: a work completion.
 *
 * <pre>
 *  0       8        12       16           20         24         28       32       36         40
 *  +-------+--------+--------+------------+----------+----------+--------+--------+----------+
 *  | wr_id | status | opcode | vendor_err | byte_len | imm_data | qp_num | src_qp | wc_flags |
 *  +-------+--------+--------+------------+----------+----------+--------+--------+----------+
 *  40: pkey_index  42: slid  44: sl  45: dlid_path_bits  48: end
 * </pre>
 */
public final class IbvWc {
    public static final StructLayout LAYOUT = struct(
            "struct ibv_wc",
            U64.withName("wr_id"),
            INT.withName("status"),
            INT.withName("opcode"),
            U32.withName("vendor_err"),
            U32.withName("byte_len"),
            union(anonymous("imm"), U32.withName("imm_data"), U32.withName("invalidated_rkey")),
            U32.withName("qp_num"),
            U32.withName("src_qp"),
            U32.withName("wc_flags"),
            U16.withName("pkey_index"),
            U16.withName("slid"),
            U8.withName("sl"),
            U8.withName("dlid_path_bits"));

    public static final long WR_ID = offsetOf(LAYOUT, "wr_id");
    public static final long STATUS = offsetOf(LAYOUT, "status");
    public static final long OPCODE = offsetOf(LAYOUT, "opcode");
    public static final long VENDOR_ERR = offsetOf(LAYOUT, "vendor_err");
    public static final long BYTE_LEN = offsetOf(LAYOUT, "byte_len");
    public static final long IMM_DATA = offsetOf(LAYOUT, "imm_data");
    public static final long QP_NUM = offsetOf(LAYOUT, "qp_num");
    public static final long SRC_QP = offsetOf(LAYOUT, "src_qp");
    public static final long WC_FLAGS = offsetOf(LAYOUT, "wc_flags");
    public static final long SIZE = LAYOUT.byteSize();

    private IbvWc() {}
}
