package io.isthmus.ffi.layout;

import static io.isthmus.ffi.layout.CLayouts.POINTER;
import static io.isthmus.ffi.layout.CLayouts.SIZE_T;
import static io.isthmus.ffi.layout.CLayouts.U32;
import static io.isthmus.ffi.layout.CLayouts.offsetOf;
import static io.isthmus.ffi.layout.CLayouts.struct;

import java.lang.foreign.StructLayout;

/**
 * {@code struct ibv_mr}: a registered memory region.
 *
 * <pre>
 *  0         8    16     24       32       36     40     44
 *  +---------+----+------+--------+--------+------+------+---+
 *  | context | pd | addr | length | handle | lkey | rkey |pad|
 *  +---------+----+------+--------+--------+------+------+---+
 * </pre>
 */
public final class IbvMr {
    public static final StructLayout LAYOUT = struct(
            "struct ibv_mr",
            POINTER.withName("context"),
            POINTER.withName("pd"),
            POINTER.withName("addr"),
            SIZE_T.withName("length"),
            U32.withName("handle"),
            U32.withName("lkey"),
            U32.withName("rkey"));

    public static final long CONTEXT = offsetOf(LAYOUT, "context");
    public static final long PD = offsetOf(LAYOUT, "pd");
    public static final long ADDR = offsetOf(LAYOUT, "addr");
    public static final long LENGTH = offsetOf(LAYOUT, "length");
    public static final long LKEY = offsetOf(LAYOUT, "lkey");
    public static final long RKEY = offsetOf(LAYOUT, "rkey");

    private IbvMr() {}
}
