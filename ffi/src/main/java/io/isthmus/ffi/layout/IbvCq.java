package io.isthmus.ffi.layout;

import static io.isthmus.ffi.layout.CLayouts.INT;
import static io.isthmus.ffi.layout.CLayouts.POINTER;
import static io.isthmus.ffi.layout.CLayouts.PTHREAD_COND;
import static io.isthmus.ffi.layout.CLayouts.PTHREAD_MUTEX;
import static io.isthmus.ffi.layout.CLayouts.U32;
import static io.isthmus.ffi.layout.CLayouts.offsetOf;
import static io.isthmus.ffi.layout.CLayouts.struct;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_cq}: a completion queue. */
public final class IbvCq {
    public static final StructLayout LAYOUT = struct(
            "struct ibv_cq",
            POINTER.withName("context"),
            POINTER.withName("channel"),
            POINTER.withName("cq_context"),
            U32.withName("handle"),
            INT.withName("cqe"),
            PTHREAD_MUTEX.withName("mutex"),
            PTHREAD_COND.withName("cond"),
            U32.withName("comp_events_completed"),
            U32.withName("async_events_completed"));

    public static final long CONTEXT = offsetOf(LAYOUT, "context");
    public static final long CHANNEL = offsetOf(LAYOUT, "channel");
    public static final long CQE = offsetOf(LAYOUT, "cqe");

    private IbvCq() {}
}
