package io.isthmus.ffi.layout;

import static io.isthmus.ffi.layout.CLayouts.INT;
import static io.isthmus.ffi.layout.CLayouts.U16;
import static io.isthmus.ffi.layout.CLayouts.U32;
import static io.isthmus.ffi.layout.CLayouts.U8;
import static io.isthmus.ffi.layout.CLayouts.offsetOf;
import static io.isthmus.ffi.layout.CLayouts.struct;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_port_attr}, filled by {@code ibv_query_port}. */
public final class IbvPortAttr {
    public static final StructLayout LAYOUT = struct(
            "struct ibv_port_attr",
            INT.withName("state"),
            INT.withName("max_mtu"),
            INT.withName("active_mtu"),
            INT.withName("gid_tbl_len"),
            U32.withName("port_cap_flags"),
            U32.withName("max_msg_sz"),
            U32.withName("bad_pkey_cntr"),
            U32.withName("qkey_viol_cntr"),
            U16.withName("pkey_tbl_len"),
            U16.withName("lid"),
            U16.withName("sm_lid"),
            U8.withName("lmc"),
            U8.withName("max_vl_num"),
            U8.withName("sm_sl"),
            U8.withName("subnet_timeout"),
            U8.withName("init_type_reply"),
            U8.withName("active_width"),
            U8.withName("active_speed"),
            U8.withName("phys_state"),
            U8.withName("link_layer"),
            U8.withName("flags"),
            U16.withName("port_cap_flags2"));

    public static final long STATE = offsetOf(LAYOUT, "state");
    public static final long MAX_MTU = offsetOf(LAYOUT, "max_mtu");
    public static final long ACTIVE_MTU = offsetOf(LAYOUT, "active_mtu");
    public static final long GID_TBL_LEN = offsetOf(LAYOUT, "gid_tbl_len");
    public static final long PORT_CAP_FLAGS = offsetOf(LAYOUT, "port_cap_flags");
    public static final long MAX_MSG_SZ = offsetOf(LAYOUT, "max_msg_sz");
    public static final long LID = offsetOf(LAYOUT, "lid");
    public static final long LINK_LAYER = offsetOf(LAYOUT, "link_layer");

    private IbvPortAttr() {}
}
