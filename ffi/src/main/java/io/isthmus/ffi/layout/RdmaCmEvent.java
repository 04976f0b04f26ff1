package io.isthmus.ffi.layout;

import static io.isthmus.ffi.layout.CLayouts.INT;
import static io.isthmus.ffi.layout.CLayouts.POINTER;
import static io.isthmus.ffi.layout.CLayouts.U32;
import static io.isthmus.ffi.layout.CLayouts.U8;
import static io.isthmus.ffi.layout.CLayouts.offsetOf;
import static io.isthmus.ffi.layout.CLayouts.struct;
import static io.isthmus.ffi.layout.CLayouts.union;

import java.lang.foreign.StructLayout;

/** {@code struct rdma_cm_event} with its {@code param} union ({@code conn} and {@code ud}). */
public final class RdmaCmEvent {
    /** {@code struct rdma_ud_param}. */
    public static final StructLayout UD_PARAM_LAYOUT = struct(
            "struct rdma_ud_param",
            POINTER.withName("private_data"),
            U8.withName("private_data_len"),
            IbvAhAttr.LAYOUT.withName("ah_attr"),
            U32.withName("qp_num"),
            U32.withName("qkey"));

    public static final StructLayout LAYOUT = struct(
            "struct rdma_cm_event",
            POINTER.withName("id"),
            POINTER.withName("listen_id"),
            INT.withName("event"),
            INT.withName("status"),
            union("param", RdmaConnParam.LAYOUT.withName("conn"), UD_PARAM_LAYOUT.withName("ud")));

    public static final long ID = offsetOf(LAYOUT, "id");
    public static final long LISTEN_ID = offsetOf(LAYOUT, "listen_id");
    public static final long EVENT = offsetOf(LAYOUT, "event");
    public static final long STATUS = offsetOf(LAYOUT, "status");
    public static final long PARAM_CONN_PRIVATE_DATA = offsetOf(LAYOUT, "param.conn.private_data");
    public static final long PARAM_CONN_PRIVATE_DATA_LEN = offsetOf(LAYOUT, "param.conn.private_data_len");
    public static final long PARAM_CONN_QP_NUM = offsetOf(LAYOUT, "param.conn.qp_num");

    private RdmaCmEvent() {}
}
