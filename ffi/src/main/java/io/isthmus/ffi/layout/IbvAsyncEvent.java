package io.isthmus.ffi.layout;

import static io.isthmus.ffi.layout.CLayouts.INT;
import static io.isthmus.ffi.layout.CLayouts.POINTER;
import static io.isthmus.ffi.layout.CLayouts.offsetOf;
import static io.isthmus.ffi.layout.CLayouts.struct;
import static io.isthmus.ffi.layout.CLayouts.union;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_async_event}: filled by {@code ibv_get_async_event}. */
public final class IbvAsyncEvent {
    public static final StructLayout LAYOUT = struct(
            "struct ibv_async_event",
            union(
                    "element",
                    POINTER.withName("cq"),
                    POINTER.withName("qp"),
                    POINTER.withName("srq"),
                    POINTER.withName("wq"),
                    INT.withName("port_num")),
            INT.withName("event_type"));

    public static final long ELEMENT_PORT_NUM = offsetOf(LAYOUT, "element.port_num");
    public static final long ELEMENT_QP = offsetOf(LAYOUT, "element.qp");
    public static final long EVENT_TYPE = offsetOf(LAYOUT, "event_type");

    private IbvAsyncEvent() {}
}
