package io.isthmus.ffi.layout;

import static io.isthmus.ffi.layout.CLayouts.INT;
import static io.isthmus.ffi.layout.CLayouts.POINTER;
import static io.isthmus.ffi.layout.CLayouts.offsetOf;
import static io.isthmus.ffi.layout.CLayouts.struct;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_comp_channel}: a file descriptor that CQ events arrive on. */
public final class IbvCompChannel {
    public static final StructLayout LAYOUT =
            struct("struct ibv_comp_channel", POINTER.withName("context"), INT.withName("fd"), INT.withName("refcnt"));

    public static final long CONTEXT = offsetOf(LAYOUT, "context");
    public static final long FD = offsetOf(LAYOUT, "fd");

    private IbvCompChannel() {}
}
