package io.isthmus.ffi.layout;

import static io.isthmus.ffi.layout.CLayouts.INT;
import static io.isthmus.ffi.layout.CLayouts.U16;
import static io.isthmus.ffi.layout.CLayouts.offsetOf;
import static io.isthmus.ffi.layout.CLayouts.struct;

import java.lang.foreign.StructLayout;

/** {@code struct pollfd} of {@code poll(2)}. */
public final class Pollfd {
    public static final StructLayout LAYOUT =
            struct("struct pollfd", INT.withName("fd"), U16.withName("events"), U16.withName("revents"));

    public static final long FD = offsetOf(LAYOUT, "fd");
    public static final long EVENTS = offsetOf(LAYOUT, "events");
    public static final long REVENTS = offsetOf(LAYOUT, "revents");

    private Pollfd() {}
}
