package io.isthmus.client.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.ffi.RdmaAvailability;
import java.util.List;
import org.junit.jupiter.api.Test;

class TransportTest {
    private static final RdmaAvailability NONE = RdmaAvailability.unavailable("no RDMA devices (test)", false);
    private static final RdmaAvailability DEVICE =
            new RdmaAvailability(true, "1 RDMA device(s)", List.of("rxe0"), true);

    @Test
    void shouldUseTcpForTcpWithoutProbing() {
        assertThat(Transport.forName("TCP").resolve(true)).isEqualTo(Transport.TCP);
        assertThat(Transport.TCP.resolve(DEVICE, true)).isEqualTo(Transport.TCP);
    }

    @Test
    void shouldUseRdmaForAutoOnlyWhenBothSidesCan() {
        assertThat(Transport.AUTO.resolve(DEVICE, true)).isEqualTo(Transport.RDMA);
        assertThat(Transport.AUTO.resolve(DEVICE, false)).isEqualTo(Transport.TCP);
        assertThat(Transport.AUTO.resolve(NONE, true)).isEqualTo(Transport.TCP);
    }

    @Test
    void shouldRefuseRdmaWithTheLocalReason() {
        assertThatThrownBy(() -> Transport.RDMA.resolve(NONE, true))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageStartingWith("RDMA transport is not available: ")
                .hasMessageContaining("no RDMA devices (test)");
    }

    @Test
    void shouldRefuseRdmaWhenTheBrokerDoesNotAdvertiseIt() {
        assertThatThrownBy(() -> Transport.RDMA.resolve(DEVICE, false))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("the broker does not advertise");
        assertThat(Transport.RDMA.resolve(DEVICE, true)).isEqualTo(Transport.RDMA);
    }

    @Test
    void shouldNameTheAllowedValuesForAnUnknownTransport() {
        assertThatThrownBy(() -> Transport.forName("udp"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("transport=udp")
                .hasMessageContaining("tcp|rdma|shm|auto");
    }

    @Test
    void shouldLeaveShmToTheClientsThatAttach() {
        assertThat(Transport.forName("shm")).isEqualTo(Transport.SHM);
        assertThatThrownBy(() -> Transport.SHM.resolve(DEVICE, true))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("attaching to the broker");
    }
}
