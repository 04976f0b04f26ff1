package io.isthmus.ffi.layout;

import static io.isthmus.ffi.layout.CLayouts.POINTER;
import static io.isthmus.ffi.layout.CLayouts.U32;
import static io.isthmus.ffi.layout.CLayouts.U8;
import static io.isthmus.ffi.layout.CLayouts.offsetOf;
import static io.isthmus.ffi.layout.CLayouts.struct;

import java.lang.foreign.StructLayout;

/** {@code struct rdma_conn_param}: the argument of {@code rdma_connect} and {@code rdma_accept}. */
public final class RdmaConnParam {
    /** {@code RDMA_MAX_RESP_RES} / {@code RDMA_MAX_INIT_DEPTH}. */
    public static final int MAX_DEPTH = 0xFF;

    public static final StructLayout LAYOUT = struct(
            "struct rdma_conn_param",
            POINTER.withName("private_data"),
            U8.withName("private_data_len"),
            U8.withName("responder_resources"),
            U8.withName("initiator_depth"),
            U8.withName("flow_control"),
            U8.withName("retry_count"),
            U8.withName("rnr_retry_count"),
            U8.withName("srq"),
            U32.withName("qp_num"));

    public static final long PRIVATE_DATA = offsetOf(LAYOUT, "private_data");
    public static final long PRIVATE_DATA_LEN = offsetOf(LAYOUT, "private_data_len");
    public static final long RESPONDER_RESOURCES = offsetOf(LAYOUT, "responder_resources");
    public static final long INITIATOR_DEPTH = offsetOf(LAYOUT, "initiator_depth");
    public static final long FLOW_CONTROL = offsetOf(LAYOUT, "flow_control");
    public static final long RETRY_COUNT = offsetOf(LAYOUT, "retry_count");
    public static final long RNR_RETRY_COUNT = offsetOf(LAYOUT, "rnr_retry_count");
    public static final long SRQ = offsetOf(LAYOUT, "srq");
    public static final long QP_NUM = offsetOf(LAYOUT, "qp_num");

    private RdmaConnParam() {}
}
