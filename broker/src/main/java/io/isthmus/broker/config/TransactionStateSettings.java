package io.isthmus.broker.config;

/**
 * The replicated transaction state topic of a cluster ({@code __transaction_state}), under Kafka's setting names.
 *
 * @param partitions {@code transaction.state.log.num.partitions}: transactional ids are spread over this many
 *     partitions, each led, and so coordinated, by one broker
 * @param replicationFactor {@code transaction.state.log.replication.factor}: the topic is created only once this many
 *     brokers are unfenced
 * @param minInsyncReplicas {@code transaction.state.log.min.isr}: a coordinator's state change counts once this many
 *     in-sync replicas hold it
 * @param segmentBytes {@code transaction.state.log.segment.bytes}
 */
public record TransactionStateSettings(
        int partitions, short replicationFactor, int minInsyncReplicas, int segmentBytes) {
    static TransactionStateSettings from(final BrokerConfig config) {
        return new TransactionStateSettings(
                config.getInt(BrokerConfig.TRANSACTION_STATE_LOG_NUM_PARTITIONS),
                config.getShort(BrokerConfig.TRANSACTION_STATE_LOG_REPLICATION_FACTOR),
                config.getInt(BrokerConfig.TRANSACTION_STATE_LOG_MIN_ISR),
                config.transactionStateLogSegmentBytes());
    }
}
