package io.isthmus.ffi.layout;

import static io.isthmus.ffi.layout.CLayouts.U16;
import static io.isthmus.ffi.layout.CLayouts.U32;
import static io.isthmus.ffi.layout.CLayouts.U8;
import static io.isthmus.ffi.layout.CLayouts.array;
import static io.isthmus.ffi.layout.CLayouts.offsetOf;
import static io.isthmus.ffi.layout.CLayouts.struct;

import java.lang.foreign.StructLayout;

/** {@code struct sockaddr_in}: an IPv4 socket address (port and address in network byte order). */
public final class SockaddrIn {
    /** {@code AF_INET}. */
    public static final short AF_INET = 2;

    public static final StructLayout LAYOUT = struct(
            "struct sockaddr_in",
            U16.withName("sin_family"),
            U16.withName("sin_port"),
            struct("sin_addr", U32.withName("s_addr")),
            array("sin_zero", 8, U8));

    public static final long SIN_FAMILY = offsetOf(LAYOUT, "sin_family");
    public static final long SIN_PORT = offsetOf(LAYOUT, "sin_port");
    public static final long SIN_ADDR = offsetOf(LAYOUT, "sin_addr");

    private SockaddrIn() {}
}
