package io.isthmus.broker.config;

import java.time.Duration;

/**
 * A cluster's replicated internal topic whose partitions' leaders are coordinators: {@code __transaction_state} for
 * transactional ids, {@code __consumer_offsets} for consumer groups, under Kafka's setting names.
 *
 * @param partitions keys (transactional ids, group ids) are spread over this many partitions, each led, and so
 *     coordinated, by one broker ({@code transaction.state.log.num.partitions}, {@code offsets.topic.num.partitions})
 * @param replicationFactor the topic is created only once this many brokers are unfenced ({@code
 *     transaction.state.log.replication.factor}, {@code offsets.topic.replication.factor})
 * @param minInsyncReplicas a coordinator's write counts once this many in-sync replicas hold it
 * @param minInsyncReplicasSetting the setting {@code minInsyncReplicas} came from, named in refusals ({@code
 *     transaction.state.log.min.isr}; the offsets topic takes the broker's {@code min.insync.replicas}, as Kafka's
 *     does)
 * @param segmentBytes {@code transaction.state.log.segment.bytes}, {@code offsets.topic.segment.bytes}
 * @param writeTimeout how long a write waits for the in-sync replicas before it is refused (10 s for transaction
 *     states; {@code offsets.commit.timeout.ms} for offset commits)
 */
public record InternalTopicSettings(
        int partitions,
        short replicationFactor,
        int minInsyncReplicas,
        String minInsyncReplicasSetting,
        int segmentBytes,
        Duration writeTimeout) {
    /** How long a transaction state change waits for the in-sync replicas (Kafka has no setting for it). */
    private static final Duration TRANSACTION_STATE_WRITE_TIMEOUT = Duration.ofSeconds(10);

    static InternalTopicSettings transactionState(final BrokerConfig config) {
        return new InternalTopicSettings(
                config.getInt(BrokerConfig.TRANSACTION_STATE_LOG_NUM_PARTITIONS),
                config.getShort(BrokerConfig.TRANSACTION_STATE_LOG_REPLICATION_FACTOR),
                config.getInt(BrokerConfig.TRANSACTION_STATE_LOG_MIN_ISR),
                BrokerConfig.TRANSACTION_STATE_LOG_MIN_ISR,
                config.transactionStateLogSegmentBytes(),
                TRANSACTION_STATE_WRITE_TIMEOUT);
    }

    static InternalTopicSettings groupOffsets(final BrokerConfig config) {
        return new InternalTopicSettings(
                config.getInt(BrokerConfig.OFFSETS_TOPIC_NUM_PARTITIONS),
                config.getShort(BrokerConfig.OFFSETS_TOPIC_REPLICATION_FACTOR),
                config.minInsyncReplicas(),
                BrokerConfig.MIN_INSYNC_REPLICAS,
                config.offsetsTopicSegmentBytes(),
                Duration.ofMillis(config.getInt(BrokerConfig.OFFSETS_COMMIT_TIMEOUT_MS)));
    }
}
