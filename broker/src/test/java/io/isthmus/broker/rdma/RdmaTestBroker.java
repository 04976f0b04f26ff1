package io.isthmus.broker.rdma;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.broker.Broker;
import io.isthmus.broker.config.BrokerConfig;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** A broker with its RDMA datapath on the Soft-RoCE guest's device, for the RDMA suite. */
final class RdmaTestBroker {
    private RdmaTestBroker() {}

    /**
     * Starts a broker on an ephemeral loopback port with RDMA on {@link RdmaTestClient#deviceName()}, room for 8 RDMA
     * clients, and {@code overrides} on top; fails the test if the datapath did not start.
     */
    static Broker start(final Path logDir, final Map<String, String> overrides) throws Exception {
        final Map<String, String> settings = new HashMap<>();
        settings.put(BrokerConfig.LISTENERS, "PLAINTEXT://127.0.0.1:0");
        settings.put(BrokerConfig.LOG_DIRS, logDir.toString());
        settings.put(BrokerConfig.NUM_NETWORK_THREADS, "1");
        settings.put(BrokerConfig.RDMA_ENABLED, "true");
        settings.put(BrokerConfig.RDMA_DEVICE, RdmaTestClient.deviceName());
        settings.put(BrokerConfig.RDMA_GID_INDEX, Integer.toString(RdmaTestClient.gidIndex()));
        settings.put(BrokerConfig.RDMA_CQ_SIZE, "1024");
        settings.put(BrokerConfig.RDMA_MAX_CONNECTIONS, "8");
        settings.putAll(overrides);
        final Broker broker = Broker.start(BrokerConfig.of(settings));
        assertThat(broker.rdma().unavailableReason()).isEmpty();
        return broker;
    }
}
