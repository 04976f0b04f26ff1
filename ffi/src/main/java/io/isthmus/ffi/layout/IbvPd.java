package io.isthmus.ffi.layout;

import static io.isthmus.ffi.layout.CLayouts.POINTER;
import static io.isthmus.ffi.layout.CLayouts.U32;
import static io.isthmus.ffi.layout.CLayouts.offsetOf;
import static io.isthmus.ffi.layout.CLayouts.struct;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_pd}: a protection domain. */
public final class IbvPd {
    public static final StructLayout LAYOUT =
            struct("struct ibv_pd", POINTER.withName("context"), U32.withName("handle"));

    public static final long CONTEXT = offsetOf(LAYOUT, "context");
    public static final long HANDLE = offsetOf(LAYOUT, "handle");

    private IbvPd() {}
}
