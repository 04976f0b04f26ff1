package io.isthmus.ffi.layout;

import static io.isthmus.ffi.layout.CLayouts.U16;
import static io.isthmus.ffi.layout.CLayouts.U8;
import static io.isthmus.ffi.layout.CLayouts.offsetOf;
import static io.isthmus.ffi.layout.CLayouts.struct;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_ah_attr}: an address vector (where the remote QP is). */
public final class IbvAhAttr {
    public static final StructLayout LAYOUT = struct(
            "struct ibv_ah_attr",
            IbvGlobalRoute.LAYOUT.withName("grh"),
            U16.withName("dlid"),
            U8.withName("sl"),
            U8.withName("src_path_bits"),
            U8.withName("static_rate"),
            U8.withName("is_global"),
            U8.withName("port_num"));

    public static final long GRH = offsetOf(LAYOUT, "grh");
    public static final long DLID = offsetOf(LAYOUT, "dlid");
    public static final long SL = offsetOf(LAYOUT, "sl");
    public static final long IS_GLOBAL = offsetOf(LAYOUT, "is_global");
    public static final long PORT_NUM = offsetOf(LAYOUT, "port_num");

    private IbvAhAttr() {}
}
