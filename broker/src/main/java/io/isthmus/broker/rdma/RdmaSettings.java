package io.isthmus.broker.rdma;

import io.isthmus.broker.config.BrokerConfig;
import io.isthmus.broker.log.LogConfig;
import io.isthmus.protocol.control.ProduceStagingDescriptor;

/**
 * The {@code rdma.*} settings of the broker.
 *
 * @param device the device name, null for the first one
 * @param produceCredits WRITE WITH IMMs one client may have unacknowledged
 * @param maxConnections RDMA clients at once (each has a range of {@code slotsPerConnection} metadata slots)
 * @param reservationTimeoutMs shared produce: how long a reservation may stay unwritten before access is revoked
 * @param stagingSlotBytes the size of each produce staging slot: {@code message.max.bytes} (the largest batch the
 *     broker accepts), rounded up to {@link ProduceStagingDescriptor#SLOT_ALIGNMENT}
 */
public record RdmaSettings(
        boolean enabled,
        String device,
        int port,
        int gidIndex,
        int cqSize,
        int maxSendWr,
        int maxRecvWr,
        int produceCredits,
        int maxConnections,
        int slotsPerConnection,
        long reservationTimeoutMs,
        int stagingSlotBytes) {

    public static RdmaSettings from(final BrokerConfig config) {
        return new RdmaSettings(
                config.getBoolean(BrokerConfig.RDMA_ENABLED),
                config.getString(BrokerConfig.RDMA_DEVICE),
                config.getInt(BrokerConfig.RDMA_PORT),
                config.getInt(BrokerConfig.RDMA_GID_INDEX),
                config.getInt(BrokerConfig.RDMA_CQ_SIZE),
                config.getInt(BrokerConfig.RDMA_QP_MAX_SEND_WR),
                config.getInt(BrokerConfig.RDMA_QP_MAX_RECV_WR),
                config.getInt(BrokerConfig.RDMA_PRODUCE_CREDITS),
                config.getInt(BrokerConfig.RDMA_MAX_CONNECTIONS),
                config.getInt(BrokerConfig.RDMA_SLOTS_PER_CONNECTION),
                config.getLong(BrokerConfig.RDMA_PRODUCE_RESERVATION_TIMEOUT_MS),
                ProduceStagingDescriptor.slotBytes(
                        LogConfig.from(config.originalsStrings()).messageMaxBytes()));
    }

    /** Writes that can wait for their turn in one shared segment: every client's credits, plus room for TCP. */
    public int sharedWindow() {
        return (int) Math.min(1 << 15, (long) maxConnections * produceCredits + 1024);
    }

    /** Credits one client gets: what it asked for acks, what we allow, and what its receive queue holds. */
    public int creditsFor(final int clientAckCredits) {
        return Math.max(0, Math.min(Math.min(produceCredits, maxRecvWr), clientAckCredits));
    }
}
