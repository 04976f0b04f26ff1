package io.isthmus.ffi.layout;

import static io.isthmus.ffi.layout.CLayouts.U32;
import static io.isthmus.ffi.layout.CLayouts.U64;
import static io.isthmus.ffi.layout.CLayouts.offsetOf;
import static io.isthmus.ffi.layout.CLayouts.struct;

import java.lang.foreign.StructLayout;

/**
 * {@code struct ibv_sge}: one scatter/gather element.
 *
 * <pre>
 *  0      8        12     16
 *  +------+--------+------+
 *  | addr | length | lkey |
 *  +------+--------+------+
 * </pre>
 */
public final class IbvSge {
    public static final StructLayout LAYOUT =
            struct("struct ibv_sge", U64.withName("addr"), U32.withName("length"), U32.withName("lkey"));

    public static final long ADDR = offsetOf(LAYOUT, "addr");
    public static final long LENGTH = offsetOf(LAYOUT, "length");
    public static final long LKEY = offsetOf(LAYOUT, "lkey");
    public static final long SIZE = LAYOUT.byteSize();

    private IbvSge() {}
}
