package io.isthmus.ffi.layout;

import static io.isthmus.ffi.layout.CLayouts.INT;
import static io.isthmus.ffi.layout.CLayouts.U16;
import static io.isthmus.ffi.layout.CLayouts.U32;
import static io.isthmus.ffi.layout.CLayouts.U8;
import static io.isthmus.ffi.layout.CLayouts.offsetOf;
import static io.isthmus.ffi.layout.CLayouts.struct;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_qp_attr}: the argument of {@code ibv_modify_qp} and {@code ibv_query_qp}. */
public final class IbvQpAttr {
    public static final StructLayout LAYOUT = struct(
            "struct ibv_qp_attr",
            INT.withName("qp_state"),
            INT.withName("cur_qp_state"),
            INT.withName("path_mtu"),
            INT.withName("path_mig_state"),
            U32.withName("qkey"),
            U32.withName("rq_psn"),
            U32.withName("sq_psn"),
            U32.withName("dest_qp_num"),
            U32.withName("qp_access_flags"),
            IbvQpCap.LAYOUT.withName("cap"),
            IbvAhAttr.LAYOUT.withName("ah_attr"),
            IbvAhAttr.LAYOUT.withName("alt_ah_attr"),
            U16.withName("pkey_index"),
            U16.withName("alt_pkey_index"),
            U8.withName("en_sqd_async_notify"),
            U8.withName("sq_draining"),
            U8.withName("max_rd_atomic"),
            U8.withName("max_dest_rd_atomic"),
            U8.withName("min_rnr_timer"),
            U8.withName("port_num"),
            U8.withName("timeout"),
            U8.withName("retry_cnt"),
            U8.withName("rnr_retry"),
            U8.withName("alt_port_num"),
            U8.withName("alt_timeout"),
            U32.withName("rate_limit"));

    public static final long QP_STATE = offsetOf(LAYOUT, "qp_state");
    public static final long CUR_QP_STATE = offsetOf(LAYOUT, "cur_qp_state");
    public static final long PATH_MTU = offsetOf(LAYOUT, "path_mtu");
    public static final long QKEY = offsetOf(LAYOUT, "qkey");
    public static final long RQ_PSN = offsetOf(LAYOUT, "rq_psn");
    public static final long SQ_PSN = offsetOf(LAYOUT, "sq_psn");
    public static final long DEST_QP_NUM = offsetOf(LAYOUT, "dest_qp_num");
    public static final long QP_ACCESS_FLAGS = offsetOf(LAYOUT, "qp_access_flags");
    public static final long CAP = offsetOf(LAYOUT, "cap");
    public static final long AH_ATTR = offsetOf(LAYOUT, "ah_attr");
    public static final long PKEY_INDEX = offsetOf(LAYOUT, "pkey_index");
    public static final long MAX_RD_ATOMIC = offsetOf(LAYOUT, "max_rd_atomic");
    public static final long MAX_DEST_RD_ATOMIC = offsetOf(LAYOUT, "max_dest_rd_atomic");
    public static final long MIN_RNR_TIMER = offsetOf(LAYOUT, "min_rnr_timer");
    public static final long PORT_NUM = offsetOf(LAYOUT, "port_num");
    public static final long TIMEOUT = offsetOf(LAYOUT, "timeout");
    public static final long RETRY_CNT = offsetOf(LAYOUT, "retry_cnt");
    public static final long RNR_RETRY = offsetOf(LAYOUT, "rnr_retry");

    private IbvQpAttr() {}
}
