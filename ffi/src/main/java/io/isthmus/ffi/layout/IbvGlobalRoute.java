package io.isthmus.ffi.layout;

import static io.isthmus.ffi.layout.CLayouts.U32;
import static io.isthmus.ffi.layout.CLayouts.U8;
import static io.isthmus.ffi.layout.CLayouts.offsetOf;
import static io.isthmus.ffi.layout.CLayouts.struct;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_global_route}: the GRH part of an address vector (mandatory on RoCE). */
public final class IbvGlobalRoute {
    public static final StructLayout LAYOUT = struct(
            "struct ibv_global_route",
            IbvGid.LAYOUT.withName("dgid"),
            U32.withName("flow_label"),
            U8.withName("sgid_index"),
            U8.withName("hop_limit"),
            U8.withName("traffic_class"));

    public static final long DGID = offsetOf(LAYOUT, "dgid");
    public static final long SGID_INDEX = offsetOf(LAYOUT, "sgid_index");
    public static final long HOP_LIMIT = offsetOf(LAYOUT, "hop_limit");

    private IbvGlobalRoute() {}
}
