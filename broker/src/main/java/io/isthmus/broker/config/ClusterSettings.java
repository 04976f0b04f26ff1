package io.isthmus.broker.config;

import io.isthmus.metadata.quorum.QuorumSettings;
import io.isthmus.metadata.quorum.QuorumVoter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.config.ConfigException;

/**
 * How a broker takes part in a cluster: the metadata quorum it votes in or follows, and how often it heartbeats to
 * the quorum's leader. Absent ({@link #from} returns empty) for a single broker, {@code process.roles} unset.
 *
 * <p>A node of a cluster is a broker and a voter ({@code process.roles=broker,controller}, Kafka's combined mode), or
 * a broker only ({@code process.roles=broker}), which follows the voters' metadata without a vote; as in Kafka, a
 * node's id is among {@code controller.quorum.voters} exactly when it has the controller role. A controller-only node
 * is refused with the reason: every isthmus node holds partitions.
 *
 * @param quorum this node's part in the metadata quorum: a voter's settings, or an observer's
 * @param heartbeatInterval {@code broker.heartbeat.interval.ms}
 * @param defaultReplicationFactor {@code default.replication.factor}
 * @param replicaLagTimeMax {@code replica.lag.time.max.ms}: how long a follower may go without catching up and stay
 *     in the ISR
 * @param replicaFetchWaitMax {@code replica.fetch.wait.max.ms}
 * @param replicaFetchMaxBytes {@code replica.fetch.max.bytes}
 * @param transactionState the replicated transaction state topic, {@code __transaction_state}
 * @param groupOffsets the replicated topic of consumer groups' committed offsets, {@code __consumer_offsets}
 */
public record ClusterSettings(
        QuorumSettings quorum,
        Duration heartbeatInterval,
        short defaultReplicationFactor,
        Duration replicaLagTimeMax,
        Duration replicaFetchWaitMax,
        int replicaFetchMaxBytes,
        InternalTopicSettings transactionState,
        InternalTopicSettings groupOffsets) {
    /** The metadata directory under the first log directory when {@code metadata.log.dir} is not set. */
    public static final String DEFAULT_METADATA_DIRECTORY = "__cluster_metadata";

    private static final List<String> COMBINED = List.of("broker", "controller");
    private static final List<String> BROKER_ONLY = List.of("broker");

    public int nodeId() {
        return quorum.nodeId();
    }

    public String clusterId() {
        return quorum.clusterId();
    }

    public Duration sessionTimeout() {
        return quorum.brokerSessionTimeout();
    }

    /**
     * The cluster settings, if {@code process.roles} makes this broker a node of a cluster.
     *
     * @throws ConfigException for roles other than {@code broker,controller}, missing or malformed voters, timeouts
     *     that do not fit together, an authorizer (replication does not authenticate yet), or no PLAINTEXT listener
     */
    public static Optional<ClusterSettings> from(final BrokerConfig config) {
        final List<String> roles = config.getList(BrokerConfig.PROCESS_ROLES).stream()
                .map(String::trim)
                .sorted()
                .toList();
        if (roles.isEmpty()) {
            return Optional.empty();
        }
        if (!roles.equals(COMBINED) && !roles.equals(BROKER_ONLY)) {
            throw new ConfigException(
                    BrokerConfig.PROCESS_ROLES,
                    String.join(",", config.getList(BrokerConfig.PROCESS_ROLES)),
                    "an isthmus node is 'broker,controller' (a broker and a voter of the metadata quorum) or 'broker'"
                            + " (a broker that follows the voters): controller-only nodes are not built, every node"
                            + " holds partitions");
        }
        final List<QuorumVoter> voters;
        try {
            voters = QuorumVoter.parseAll(config.getString(BrokerConfig.CONTROLLER_QUORUM_VOTERS));
        } catch (final IllegalArgumentException e) {
            throw new ConfigException(
                    BrokerConfig.CONTROLLER_QUORUM_VOTERS,
                    config.getString(BrokerConfig.CONTROLLER_QUORUM_VOTERS),
                    e.getMessage());
        }
        final boolean voter = voters.stream().anyMatch(v -> v.id() == config.nodeId());
        if (voter != roles.equals(COMBINED)) {
            throw new ConfigException(
                    BrokerConfig.NODE_ID,
                    config.nodeId(),
                    voter
                            ? "node " + config.nodeId() + " is among " + BrokerConfig.CONTROLLER_QUORUM_VOTERS + " but"
                                    + " has no controller role: set process.roles=broker,controller"
                            : "node " + config.nodeId() + " has the controller role but is not among "
                                    + BrokerConfig.CONTROLLER_QUORUM_VOTERS + " " + voters
                                    + ": add it there, or set process.roles=broker");
        }
        final String dir = config.getString(BrokerConfig.METADATA_LOG_DIR);
        final Path directory = dir == null || dir.isBlank()
                ? config.logDirs().getFirst().resolve(DEFAULT_METADATA_DIRECTORY)
                : Path.of(dir);
        // Followers fetch from their leaders over a PLAINTEXT listener, as ANONYMOUS: an authorizer would refuse them
        // (or have to let any client act as a replica), and without such a listener nothing would be replicated.
        if (!config.getString(BrokerConfig.AUTHORIZER_CLASS_NAME).isBlank()) {
            throw new ConfigException(
                    BrokerConfig.AUTHORIZER_CLASS_NAME,
                    config.getString(BrokerConfig.AUTHORIZER_CLASS_NAME),
                    "a node of a cluster takes no authorizer yet: replication between brokers does not authenticate,"
                            + " so every follower's fetch would be refused");
        }
        final var protocols = config.listenerProtocols();
        if (config.listeners().stream()
                .noneMatch(l -> protocols.get(l.listenerName())
                        == org.apache.kafka.common.security.auth.SecurityProtocol.PLAINTEXT)) {
            throw new ConfigException(
                    BrokerConfig.LISTENERS,
                    config.getList(BrokerConfig.LISTENERS).toString(),
                    "a node of a cluster needs a PLAINTEXT listener: followers fetch from their leaders over it");
        }
        if (config.getBoolean(BrokerConfig.UNCLEAN_LEADER_ELECTION_ENABLE)) {
            throw new ConfigException(
                    BrokerConfig.UNCLEAN_LEADER_ELECTION_ENABLE,
                    "true",
                    "isthmus elects leaders only from the ISR: an unclean election could lose acknowledged records");
        }
        final Duration lag = Duration.ofMillis(config.getLong(BrokerConfig.REPLICA_LAG_TIME_MAX_MS));
        final Duration fetchWait = Duration.ofMillis(config.getInt(BrokerConfig.REPLICA_FETCH_WAIT_MAX_MS));
        if (fetchWait.compareTo(lag) >= 0) {
            throw new ConfigException(
                    BrokerConfig.REPLICA_FETCH_WAIT_MAX_MS,
                    fetchWait.toMillis(),
                    "must be below " + BrokerConfig.REPLICA_LAG_TIME_MAX_MS + " (" + lag.toMillis() + "), or an idle"
                            + " follower would leave the ISR while it waits");
        }
        final Duration heartbeat = Duration.ofMillis(config.getInt(BrokerConfig.BROKER_HEARTBEAT_INTERVAL_MS));
        final Duration session = Duration.ofMillis(config.getInt(BrokerConfig.BROKER_SESSION_TIMEOUT_MS));
        if (heartbeat.compareTo(session) >= 0) {
            throw new ConfigException(
                    BrokerConfig.BROKER_HEARTBEAT_INTERVAL_MS,
                    heartbeat.toMillis(),
                    "must be below " + BrokerConfig.BROKER_SESSION_TIMEOUT_MS + " (" + session.toMillis() + ")");
        }
        try {
            return Optional.of(new ClusterSettings(
                    new QuorumSettings(
                            config.nodeId(),
                            config.clusterId(),
                            voters,
                            directory,
                            Duration.ofMillis(config.getInt(BrokerConfig.CONTROLLER_QUORUM_ELECTION_TIMEOUT_MS)),
                            session,
                            QuorumSettings.DEFAULT_SNAPSHOT_EVERY_ENTRIES,
                            QuorumSettings.DEFAULT_LOG_SEGMENT_BYTES),
                    heartbeat,
                    config.getShort(BrokerConfig.DEFAULT_REPLICATION_FACTOR),
                    lag,
                    fetchWait,
                    config.getInt(BrokerConfig.REPLICA_FETCH_MAX_BYTES),
                    InternalTopicSettings.transactionState(config),
                    InternalTopicSettings.groupOffsets(config)));
        } catch (final IllegalArgumentException e) {
            throw new ConfigException(e.getMessage());
        }
    }
}
