package io.isthmus.ffi.layout;

import static io.isthmus.ffi.layout.CLayouts.POINTER;
import static io.isthmus.ffi.layout.CLayouts.U32;
import static io.isthmus.ffi.layout.CLayouts.offsetOf;
import static io.isthmus.ffi.layout.CLayouts.struct;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_srq_init_attr} with its embedded {@code struct ibv_srq_attr}. */
public final class IbvSrqInitAttr {
    /** {@code struct ibv_srq_attr}. */
    public static final StructLayout ATTR_LAYOUT =
            struct("struct ibv_srq_attr", U32.withName("max_wr"), U32.withName("max_sge"), U32.withName("srq_limit"));

    public static final StructLayout LAYOUT =
            struct("struct ibv_srq_init_attr", POINTER.withName("srq_context"), ATTR_LAYOUT.withName("attr"));

    public static final long ATTR_MAX_WR = offsetOf(LAYOUT, "attr.max_wr");
    public static final long ATTR_MAX_SGE = offsetOf(LAYOUT, "attr.max_sge");
    public static final long ATTR_SRQ_LIMIT = offsetOf(LAYOUT, "attr.srq_limit");

    private IbvSrqInitAttr() {}
}
