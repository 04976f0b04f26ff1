package io.isthmus.ffi.layout;

import static io.isthmus.ffi.layout.CLayouts.U32;
import static io.isthmus.ffi.layout.CLayouts.offsetOf;
import static io.isthmus.ffi.layout.CLayouts.struct;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_qp_cap}: queue sizes of a QP (embedded in init and modify attributes). */
public final class IbvQpCap {
    public static final StructLayout LAYOUT = struct(
            "struct ibv_qp_cap",
            U32.withName("max_send_wr"),
            U32.withName("max_recv_wr"),
            U32.withName("max_send_sge"),
            U32.withName("max_recv_sge"),
            U32.withName("max_inline_data"));

    public static final long MAX_SEND_WR = offsetOf(LAYOUT, "max_send_wr");
    public static final long MAX_RECV_WR = offsetOf(LAYOUT, "max_recv_wr");
    public static final long MAX_SEND_SGE = offsetOf(LAYOUT, "max_send_sge");
    public static final long MAX_RECV_SGE = offsetOf(LAYOUT, "max_recv_sge");
    public static final long MAX_INLINE_DATA = offsetOf(LAYOUT, "max_inline_data");

    private IbvQpCap() {}
}
