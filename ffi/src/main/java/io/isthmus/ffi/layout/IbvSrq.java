package io.isthmus.ffi.layout;

import static io.isthmus.ffi.layout.CLayouts.POINTER;
import static io.isthmus.ffi.layout.CLayouts.PTHREAD_COND;
import static io.isthmus.ffi.layout.CLayouts.PTHREAD_MUTEX;
import static io.isthmus.ffi.layout.CLayouts.U32;
import static io.isthmus.ffi.layout.CLayouts.offsetOf;
import static io.isthmus.ffi.layout.CLayouts.struct;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_srq}: a shared receive queue. */
public final class IbvSrq {
    public static final StructLayout LAYOUT = struct(
            "struct ibv_srq",
            POINTER.withName("context"),
            POINTER.withName("srq_context"),
            POINTER.withName("pd"),
            U32.withName("handle"),
            PTHREAD_MUTEX.withName("mutex"),
            PTHREAD_COND.withName("cond"),
            U32.withName("events_completed"));

    public static final long CONTEXT = offsetOf(LAYOUT, "context");
    public static final long PD = offsetOf(LAYOUT, "pd");

    private IbvSrq() {}
}
