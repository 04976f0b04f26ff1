package io.isthmus.client.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TransportTest {
    @Test
    void shouldUseTcpForAutoAndTcp() {
        assertThat(Transport.forName("auto").resolve()).isEqualTo(Transport.TCP);
        assertThat(Transport.forName("TCP").resolve()).isEqualTo(Transport.TCP);
    }

    @Test
    void shouldRefuseRdmaWithTheReason() {
        assertThatThrownBy(() -> Transport.RDMA.resolve())
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("RDMA transport is not available");
    }

    @Test
    void shouldNameTheAllowedValuesForAnUnknownTransport() {
        assertThatThrownBy(() -> Transport.forName("udp"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("transport=udp")
                .hasMessageContaining("tcp|rdma|auto");
    }
}
