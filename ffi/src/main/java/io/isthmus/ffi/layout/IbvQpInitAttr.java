package io.isthmus.ffi.layout;

import static io.isthmus.ffi.layout.CLayouts.INT;
import static io.isthmus.ffi.layout.CLayouts.POINTER;
import static io.isthmus.ffi.layout.CLayouts.offsetOf;
import static io.isthmus.ffi.layout.CLayouts.struct;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_qp_init_attr}: the argument of {@code ibv_create_qp} and {@code rdma_create_qp}. */
public final class IbvQpInitAttr {
    public static final StructLayout LAYOUT = struct(
            "struct ibv_qp_init_attr",
            POINTER.withName("qp_context"),
            POINTER.withName("send_cq"),
            POINTER.withName("recv_cq"),
            POINTER.withName("srq"),
            IbvQpCap.LAYOUT.withName("cap"),
            INT.withName("qp_type"),
            INT.withName("sq_sig_all"));

    public static final long SEND_CQ = offsetOf(LAYOUT, "send_cq");
    public static final long RECV_CQ = offsetOf(LAYOUT, "recv_cq");
    public static final long SRQ = offsetOf(LAYOUT, "srq");
    public static final long CAP = offsetOf(LAYOUT, "cap");
    public static final long QP_TYPE = offsetOf(LAYOUT, "qp_type");
    public static final long SQ_SIG_ALL = offsetOf(LAYOUT, "sq_sig_all");

    private IbvQpInitAttr() {}
}
