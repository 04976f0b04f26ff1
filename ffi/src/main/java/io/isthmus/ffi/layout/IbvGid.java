package io.isthmus.ffi.layout;

import static io.isthmus.ffi.layout.CLayouts.U64;
import static io.isthmus.ffi.layout.CLayouts.U8;
import static io.isthmus.ffi.layout.CLayouts.array;
import static io.isthmus.ffi.layout.CLayouts.struct;
import static io.isthmus.ffi.layout.CLayouts.union;

import java.lang.foreign.UnionLayout;

/**
 * {@code union ibv_gid}: a 128-bit global identifier (an IPv6 address on RoCE).
 *
 * <pre>
 *  0               8               16
 *  +---------------+---------------+
 *  | raw[16]                       |
 *  | subnet_prefix | interface_id  |  (global, big-endian)
 *  +---------------+---------------+
 * </pre>
 */
public final class IbvGid {
    public static final UnionLayout LAYOUT = union(
            "union ibv_gid",
            array("raw", 16, U8),
            struct("global", U64.withName("subnet_prefix"), U64.withName("interface_id")));

    public static final long RAW = CLayouts.offsetOf(LAYOUT, "raw");
    public static final long SIZE = LAYOUT.byteSize();

    private IbvGid() {}
}
