package io.isthmus.ffi.layout;

import static io.isthmus.ffi.layout.CLayouts.U16;
import static io.isthmus.ffi.layout.CLayouts.U32;
import static io.isthmus.ffi.layout.CLayouts.U8;
import static io.isthmus.ffi.layout.CLayouts.array;
import static io.isthmus.ffi.layout.CLayouts.offsetOf;
import static io.isthmus.ffi.layout.CLayouts.struct;

import java.lang.foreign.StructLayout;

/** {@code struct sockaddr_in6}: an IPv6 socket address. */
public final class SockaddrIn6 {
    /** {@code AF_INET6} on Linux. */
    public static final short AF_INET6 = 10;

    public static final StructLayout LAYOUT = struct(
            "struct sockaddr_in6",
            U16.withName("sin6_family"),
            U16.withName("sin6_port"),
            U32.withName("sin6_flowinfo"),
            array("sin6_addr", 16, U8),
            U32.withName("sin6_scope_id"));

    public static final long SIN6_FAMILY = offsetOf(LAYOUT, "sin6_family");
    public static final long SIN6_PORT = offsetOf(LAYOUT, "sin6_port");
    public static final long SIN6_ADDR = offsetOf(LAYOUT, "sin6_addr");
    public static final long SIN6_SCOPE_ID = offsetOf(LAYOUT, "sin6_scope_id");

    private SockaddrIn6() {}
}
