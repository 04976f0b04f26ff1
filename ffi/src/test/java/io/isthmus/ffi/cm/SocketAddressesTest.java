package io.isthmus.ffi.cm;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.ffi.layout.SockaddrIn;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class SocketAddressesTest {
    @Test
    void shouldEncodeIpv4InNetworkByteOrder() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sin =
                    SocketAddresses.encode(new InetSocketAddress(InetAddress.getByName("169.254.77.1"), 0x1234), arena);

            assertThat(sin.get(JAVA_SHORT, SockaddrIn.SIN_FAMILY)).isEqualTo((short) 2);
            assertThat(sin.get(JAVA_BYTE, SockaddrIn.SIN_PORT)).isEqualTo((byte) 0x12);
            assertThat(sin.get(JAVA_BYTE, SockaddrIn.SIN_PORT + 1)).isEqualTo((byte) 0x34);
            assertThat(sin.get(JAVA_BYTE, SockaddrIn.SIN_ADDR)).isEqualTo((byte) 169);
            assertThat(sin.get(JAVA_BYTE, SockaddrIn.SIN_ADDR + 3)).isEqualTo((byte) 1);
        }
    }

    @Test
    void shouldRoundTripIpv4AndIpv6() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            InetSocketAddress v4 = new InetSocketAddress(InetAddress.getByName("10.1.2.3"), 7000);
            InetSocketAddress v6 = new InetSocketAddress(InetAddress.getByName("fe80::1"), 65535);

            assertThat(SocketAddresses.decode(SocketAddresses.encode(v4, arena)))
                    .isEqualTo(v4);
            assertThat(SocketAddresses.decode(SocketAddresses.encode(v6, arena)).getPort())
                    .isEqualTo(65535);
            assertThat(SocketAddresses.decode(SocketAddresses.encode(v6, arena)).getAddress())
                    .isEqualTo(v6.getAddress());
            assertThat(SocketAddresses.decode(arena.allocate(28))).isNull();
        }
    }
}
