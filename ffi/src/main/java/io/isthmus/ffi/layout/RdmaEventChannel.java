package io.isthmus.ffi.layout;

import static io.isthmus.ffi.layout.CLayouts.INT;
import static io.isthmus.ffi.layout.CLayouts.offsetOf;
import static io.isthmus.ffi.layout.CLayouts.struct;

import java.lang.foreign.StructLayout;

/** {@code struct rdma_event_channel}: the file descriptor RDMA CM events arrive on. */
public final class RdmaEventChannel {
    public static final StructLayout LAYOUT = struct("struct rdma_event_channel", INT.withName("fd"));

    public static final long FD = offsetOf(LAYOUT, "fd");

    private RdmaEventChannel() {}
}
