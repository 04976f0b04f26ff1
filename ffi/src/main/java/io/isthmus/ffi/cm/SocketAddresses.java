package io.isthmus.ffi.cm;

import io.isthmus.ffi.layout.SockaddrIn;
import io.isthmus.ffi.layout.SockaddrIn6;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;

/** Converts between {@link InetSocketAddress} and {@code struct sockaddr_in} / {@code sockaddr_in6}. */
public final class SocketAddresses {
    private static final ValueLayout.OfShort PORT = ValueLayout.JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN);

    private SocketAddresses() {}

    /** Encodes {@code address} into a new native {@code sockaddr} allocated in {@code arena}. */
    public static MemorySegment encode(InetSocketAddress address, Arena arena) {
        InetAddress ip = address.getAddress();
        if (ip == null) {
            throw new IllegalArgumentException("unresolved address: " + address);
        }
        if (ip instanceof Inet4Address) {
            MemorySegment sin = arena.allocate(SockaddrIn.LAYOUT);
            sin.set(ValueLayout.JAVA_SHORT, SockaddrIn.SIN_FAMILY, SockaddrIn.AF_INET);
            sin.set(PORT, SockaddrIn.SIN_PORT, (short) address.getPort());
            MemorySegment.copy(ip.getAddress(), 0, sin, ValueLayout.JAVA_BYTE, SockaddrIn.SIN_ADDR, 4);
            return sin;
        }
        MemorySegment sin6 = arena.allocate(SockaddrIn6.LAYOUT);
        sin6.set(ValueLayout.JAVA_SHORT, SockaddrIn6.SIN6_FAMILY, SockaddrIn6.AF_INET6);
        sin6.set(PORT, SockaddrIn6.SIN6_PORT, (short) address.getPort());
        MemorySegment.copy(ip.getAddress(), 0, sin6, ValueLayout.JAVA_BYTE, SockaddrIn6.SIN6_ADDR, 16);
        sin6.set(ValueLayout.JAVA_INT, SockaddrIn6.SIN6_SCOPE_ID, ((Inet6Address) ip).getScopeId());
        return sin6;
    }

    /** Decodes a native {@code sockaddr_in} or {@code sockaddr_in6}; null for another family. */
    public static InetSocketAddress decode(MemorySegment sockaddr) {
        MemorySegment s = sockaddr.reinterpret(SockaddrIn6.LAYOUT.byteSize());
        short family = s.get(ValueLayout.JAVA_SHORT, 0);
        try {
            if (family == SockaddrIn.AF_INET) {
                byte[] ip = s.asSlice(SockaddrIn.SIN_ADDR, 4).toArray(ValueLayout.JAVA_BYTE);
                return new InetSocketAddress(
                        InetAddress.getByAddress(ip), Short.toUnsignedInt(s.get(PORT, SockaddrIn.SIN_PORT)));
            }
            if (family == SockaddrIn6.AF_INET6) {
                byte[] ip = s.asSlice(SockaddrIn6.SIN6_ADDR, 16).toArray(ValueLayout.JAVA_BYTE);
                return new InetSocketAddress(
                        InetAddress.getByAddress(ip), Short.toUnsignedInt(s.get(PORT, SockaddrIn6.SIN6_PORT)));
            }
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("bad address bytes in sockaddr: family=" + family, e);
        }
        return null;
    }
}
