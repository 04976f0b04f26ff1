package io.isthmus.ffi.layout;

import static io.isthmus.ffi.layout.CLayouts.INT;
import static io.isthmus.ffi.layout.CLayouts.POINTER;
import static io.isthmus.ffi.layout.CLayouts.PTHREAD_COND;
import static io.isthmus.ffi.layout.CLayouts.PTHREAD_MUTEX;
import static io.isthmus.ffi.layout.CLayouts.U32;
import static io.isthmus.ffi.layout.CLayouts.offsetOf;
import static io.isthmus.ffi.layout.CLayouts.struct;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_qp}: a queue pair. */
public final class IbvQp {
    public static final StructLayout LAYOUT = struct(
            "struct ibv_qp",
            POINTER.withName("context"),
            POINTER.withName("qp_context"),
            POINTER.withName("pd"),
            POINTER.withName("send_cq"),
            POINTER.withName("recv_cq"),
            POINTER.withName("srq"),
            U32.withName("handle"),
            U32.withName("qp_num"),
            INT.withName("state"),
            INT.withName("qp_type"),
            PTHREAD_MUTEX.withName("mutex"),
            PTHREAD_COND.withName("cond"),
            U32.withName("events_completed"));

    public static final long CONTEXT = offsetOf(LAYOUT, "context");
    public static final long PD = offsetOf(LAYOUT, "pd");
    public static final long QP_NUM = offsetOf(LAYOUT, "qp_num");
    public static final long STATE = offsetOf(LAYOUT, "state");
    public static final long QP_TYPE = offsetOf(LAYOUT, "qp_type");

    private IbvQp() {}
}
