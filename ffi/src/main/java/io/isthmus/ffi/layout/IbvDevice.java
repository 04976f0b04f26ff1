package io.isthmus.ffi.layout;

import static io.isthmus.ffi.layout.CLayouts.INT;
import static io.isthmus.ffi.layout.CLayouts.POINTER;
import static io.isthmus.ffi.layout.CLayouts.U8;
import static io.isthmus.ffi.layout.CLayouts.array;
import static io.isthmus.ffi.layout.CLayouts.offsetOf;
import static io.isthmus.ffi.layout.CLayouts.struct;

import java.lang.foreign.StructLayout;

/**
 * {@code struct ibv_device}: an entry of the list {@code ibv_get_device_list} returns. Only the
 * names are read; {@code _ops} is private to libibverbs.
 */
public final class IbvDevice {
    /** {@code IBV_SYSFS_NAME_MAX}. */
    public static final int SYSFS_NAME_MAX = 64;
    /** {@code IBV_SYSFS_PATH_MAX}. */
    public static final int SYSFS_PATH_MAX = 256;

    public static final StructLayout LAYOUT = struct(
            "struct ibv_device",
            array("_ops", 2, POINTER),
            INT.withName("node_type"),
            INT.withName("transport_type"),
            array("name", SYSFS_NAME_MAX, U8),
            array("dev_name", SYSFS_NAME_MAX, U8),
            array("dev_path", SYSFS_PATH_MAX, U8),
            array("ibdev_path", SYSFS_PATH_MAX, U8));

    public static final long NODE_TYPE = offsetOf(LAYOUT, "node_type");
    public static final long TRANSPORT_TYPE = offsetOf(LAYOUT, "transport_type");
    public static final long NAME = offsetOf(LAYOUT, "name");
    public static final long IBDEV_PATH = offsetOf(LAYOUT, "ibdev_path");

    private IbvDevice() {}
}
