package io.isthmus.ffi.layout;

import static io.isthmus.ffi.layout.CLayouts.INT;
import static io.isthmus.ffi.layout.CLayouts.POINTER;
import static io.isthmus.ffi.layout.CLayouts.U64;
import static io.isthmus.ffi.layout.CLayouts.offsetOf;
import static io.isthmus.ffi.layout.CLayouts.struct;

import java.lang.foreign.StructLayout;

/**
 * {@code struct ibv_recv_wr}: a receive-queue work request.
 *
 * <pre>
 *  0       8      16        24        28    32
 *  +-------+------+---------+---------+-----+
 *  | wr_id | next | sg_list | num_sge | pad |
 *  +-------+------+---------+---------+-----+
 * </pre>
 */
public final class IbvRecvWr {
    public static final StructLayout LAYOUT = struct(
            "struct ibv_recv_wr",
            U64.withName("wr_id"),
            POINTER.withName("next"),
            POINTER.withName("sg_list"),
            INT.withName("num_sge"));

    public static final long WR_ID = offsetOf(LAYOUT, "wr_id");
    public static final long NEXT = offsetOf(LAYOUT, "next");
    public static final long SG_LIST = offsetOf(LAYOUT, "sg_list");
    public static final long NUM_SGE = offsetOf(LAYOUT, "num_sge");
    public static final long SIZE = LAYOUT.byteSize();

    private IbvRecvWr() {}
}
