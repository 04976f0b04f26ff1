package io.isthmus.ffi.layout;

import static io.isthmus.ffi.layout.CLayouts.INT;
import static io.isthmus.ffi.layout.CLayouts.U16;
import static io.isthmus.ffi.layout.CLayouts.U32;
import static io.isthmus.ffi.layout.CLayouts.U64;
import static io.isthmus.ffi.layout.CLayouts.U8;
import static io.isthmus.ffi.layout.CLayouts.array;
import static io.isthmus.ffi.layout.CLayouts.offsetOf;
import static io.isthmus.ffi.layout.CLayouts.struct;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_device_attr}, filled by {@code ibv_query_device}. */
public final class IbvDeviceAttr {
    public static final StructLayout LAYOUT = struct(
            "struct ibv_device_attr",
            array("fw_ver", 64, U8),
            U64.withName("node_guid"),
            U64.withName("sys_image_guid"),
            U64.withName("max_mr_size"),
            U64.withName("page_size_cap"),
            U32.withName("vendor_id"),
            U32.withName("vendor_part_id"),
            U32.withName("hw_ver"),
            INT.withName("max_qp"),
            INT.withName("max_qp_wr"),
            U32.withName("device_cap_flags"),
            INT.withName("max_sge"),
            INT.withName("max_sge_rd"),
            INT.withName("max_cq"),
            INT.withName("max_cqe"),
            INT.withName("max_mr"),
            INT.withName("max_pd"),
            INT.withName("max_qp_rd_atom"),
            INT.withName("max_ee_rd_atom"),
            INT.withName("max_res_rd_atom"),
            INT.withName("max_qp_init_rd_atom"),
            INT.withName("max_ee_init_rd_atom"),
            INT.withName("atomic_cap"),
            INT.withName("max_ee"),
            INT.withName("max_rdd"),
            INT.withName("max_mw"),
            INT.withName("max_raw_ipv6_qp"),
            INT.withName("max_raw_ethy_qp"),
            INT.withName("max_mcast_grp"),
            INT.withName("max_mcast_qp_attach"),
            INT.withName("max_total_mcast_qp_attach"),
            INT.withName("max_ah"),
            INT.withName("max_fmr"),
            INT.withName("max_map_per_fmr"),
            INT.withName("max_srq"),
            INT.withName("max_srq_wr"),
            INT.withName("max_srq_sge"),
            U16.withName("max_pkeys"),
            U8.withName("local_ca_ack_delay"),
            U8.withName("phys_port_cnt"));

    public static final long FW_VER = offsetOf(LAYOUT, "fw_ver");
    public static final long NODE_GUID = offsetOf(LAYOUT, "node_guid");
    public static final long MAX_MR_SIZE = offsetOf(LAYOUT, "max_mr_size");
    public static final long VENDOR_ID = offsetOf(LAYOUT, "vendor_id");
    public static final long VENDOR_PART_ID = offsetOf(LAYOUT, "vendor_part_id");
    public static final long MAX_QP = offsetOf(LAYOUT, "max_qp");
    public static final long MAX_QP_WR = offsetOf(LAYOUT, "max_qp_wr");
    public static final long DEVICE_CAP_FLAGS = offsetOf(LAYOUT, "device_cap_flags");
    public static final long MAX_SGE = offsetOf(LAYOUT, "max_sge");
    public static final long MAX_SGE_RD = offsetOf(LAYOUT, "max_sge_rd");
    public static final long MAX_CQ = offsetOf(LAYOUT, "max_cq");
    public static final long MAX_CQE = offsetOf(LAYOUT, "max_cqe");
    public static final long MAX_MR = offsetOf(LAYOUT, "max_mr");
    public static final long MAX_PD = offsetOf(LAYOUT, "max_pd");
    public static final long MAX_QP_RD_ATOM = offsetOf(LAYOUT, "max_qp_rd_atom");
    public static final long MAX_QP_INIT_RD_ATOM = offsetOf(LAYOUT, "max_qp_init_rd_atom");
    public static final long ATOMIC_CAP = offsetOf(LAYOUT, "atomic_cap");
    public static final long MAX_SRQ = offsetOf(LAYOUT, "max_srq");
    public static final long MAX_SRQ_WR = offsetOf(LAYOUT, "max_srq_wr");
    public static final long MAX_SRQ_SGE = offsetOf(LAYOUT, "max_srq_sge");
    public static final long PHYS_PORT_CNT = offsetOf(LAYOUT, "phys_port_cnt");

    private IbvDeviceAttr() {}
}
