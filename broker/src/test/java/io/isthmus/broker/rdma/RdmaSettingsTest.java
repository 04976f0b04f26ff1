package io.isthmus.broker.rdma;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.broker.config.BrokerConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RdmaSettingsTest {
    @Test
    void shouldDefaultToOffOnPortOneGidIndexOne() {
        final RdmaSettings settings = RdmaSettings.from(BrokerConfig.of(Map.of()));

        assertThat(settings.enabled()).isFalse();
        assertThat(settings.device()).isNull();
        assertThat(settings.port()).isEqualTo(1);
        assertThat(settings.gidIndex()).isEqualTo(1);
        assertThat(settings.produceCredits()).isPositive();
        assertThat(settings.reservationTimeoutMs()).isEqualTo(5000);
    }

    @Test
    void shouldSizeTheSharedWindowForEveryClientsCreditsPlusTcp() {
        final RdmaSettings settings = RdmaSettings.from(BrokerConfig.of(Map.of(
                BrokerConfig.RDMA_MAX_CONNECTIONS, "10",
                BrokerConfig.RDMA_PRODUCE_CREDITS, "16",
                BrokerConfig.RDMA_PRODUCE_RESERVATION_TIMEOUT_MS, "250")));

        assertThat(settings.sharedWindow()).isEqualTo(10 * 16 + 1024);
        assertThat(settings.reservationTimeoutMs()).isEqualTo(250);
        assertThat(RdmaSettings.from(BrokerConfig.of(Map.of(BrokerConfig.RDMA_MAX_CONNECTIONS, "65535")))
                        .sharedWindow())
                .as("never more than half the 16-bit order space")
                .isEqualTo(1 << 15);
    }

    @Test
    void shouldReadTheRdmaKeys() {
        final RdmaSettings settings = RdmaSettings.from(BrokerConfig.of(Map.of(
                BrokerConfig.RDMA_ENABLED, "true",
                BrokerConfig.RDMA_DEVICE, "mlx5_0",
                BrokerConfig.RDMA_GID_INDEX, "3",
                BrokerConfig.RDMA_CQ_SIZE, "2048",
                BrokerConfig.RDMA_QP_MAX_RECV_WR, "8",
                BrokerConfig.RDMA_PRODUCE_CREDITS, "16")));

        assertThat(settings.enabled()).isTrue();
        assertThat(settings.device()).isEqualTo("mlx5_0");
        assertThat(settings.gidIndex()).isEqualTo(3);
        assertThat(settings.cqSize()).isEqualTo(2048);
        assertThat(settings.creditsFor(100)).as("bounded by the receive queue").isEqualTo(8);
        assertThat(settings.creditsFor(4))
                .as("bounded by the client's ack receives")
                .isEqualTo(4);
    }
}
