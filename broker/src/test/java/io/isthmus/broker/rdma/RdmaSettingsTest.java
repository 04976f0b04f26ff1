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
