package io.isthmus.connector.flink.source;

import java.time.Duration;
import java.util.Set;

/**
 * The source's own settings, passed with {@code setProperty} beside the consumer's, with the names and defaults of
 * Kafka's {@code KafkaSourceOptions}. Every other property goes to the isthmus consumer.
 */
public final class IsthmusSourceOptions {
    /** Prefix of the consumers' {@code client.id}s; the subtask index follows. Default: the group id, or a random one. */
    public static final String CLIENT_ID_PREFIX = "client.id.prefix";

    /** How often to look for new partitions and topics, in ms; 0 or less turns discovery off. Default 5 minutes. */
    public static final String PARTITION_DISCOVERY_INTERVAL_MS = "partition.discovery.interval.ms";

    /** Commit the checkpointed offsets to the group when a checkpoint completes. Default true (needs a group id). */
    public static final String COMMIT_OFFSETS_ON_CHECKPOINT = "commit.offsets.on.checkpoint";

    /** The longest one poll of a split reader waits for records, in ms. Default 10 seconds. */
    public static final String POLL_TIMEOUT_MS = "poll.timeout.ms";

    static final long DEFAULT_PARTITION_DISCOVERY_INTERVAL_MS =
            Duration.ofMinutes(5).toMillis();
    static final boolean DEFAULT_COMMIT_OFFSETS_ON_CHECKPOINT = true;
    static final long DEFAULT_POLL_TIMEOUT_MS = 10_000L;

    static final Set<String> NAMES =
            Set.of(CLIENT_ID_PREFIX, PARTITION_DISCOVERY_INTERVAL_MS, COMMIT_OFFSETS_ON_CHECKPOINT, POLL_TIMEOUT_MS);

    private IsthmusSourceOptions() {}
}
