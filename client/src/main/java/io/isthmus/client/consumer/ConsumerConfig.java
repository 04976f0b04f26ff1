package io.isthmus.client.consumer;

import io.isthmus.client.cluster.BrokerConnections;
import io.isthmus.client.config.ConfigReader;
import io.isthmus.client.config.Transport;
import io.isthmus.client.network.SocketBuffers;
import io.isthmus.client.rdma.RdmaClientSettings;
import io.isthmus.client.security.SecuritySettings;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/** Consumer settings, with Kafka's names and defaults. */
public final class ConsumerConfig {
    public static final String BOOTSTRAP_SERVERS = "bootstrap.servers";
    public static final String CLIENT_ID = "client.id";
    public static final String GROUP_ID = "group.id";
    public static final String AUTO_OFFSET_RESET = "auto.offset.reset";
    public static final String ENABLE_AUTO_COMMIT = "enable.auto.commit";
    public static final String AUTO_COMMIT_INTERVAL_MS = "auto.commit.interval.ms";
    public static final String FETCH_MIN_BYTES = "fetch.min.bytes";
    public static final String FETCH_MAX_BYTES = "fetch.max.bytes";
    public static final String FETCH_MAX_WAIT_MS = "fetch.max.wait.ms";
    public static final String MAX_PARTITION_FETCH_BYTES = "max.partition.fetch.bytes";
    public static final String CHECK_CRCS = "check.crcs";
    public static final String SESSION_TIMEOUT_MS = "session.timeout.ms";
    public static final String HEARTBEAT_INTERVAL_MS = "heartbeat.interval.ms";
    public static final String MAX_POLL_INTERVAL_MS = "max.poll.interval.ms";
    public static final String REQUEST_TIMEOUT_MS = "request.timeout.ms";
    /** Kafka's name: how long opening a broker connection (connect, ApiVersions, SASL) may take. */
    public static final String SOCKET_CONNECTION_SETUP_TIMEOUT_MS = "socket.connection.setup.timeout.ms";

    public static final String ISOLATION_LEVEL = "isolation.level";
    public static final String METADATA_MAX_AGE_MS = "metadata.max.age.ms";
    public static final String TRANSPORT = "transport";

    /**
     * The consumer's kernel buffers unless set: a receive buffer that holds a whole fetch response of up to 4 MiB lets
     * the pipelined response travel while the application reads the previous one. Against the 1 MiB asked for before,
     * alternating on one broker, the bench's consume workload read 7-38 % more 1 KiB records per second and 11-43 %
     * more 100 B records (three pairs each, 2026-11-27; the README's Performance section).
     */
    public static final SocketBuffers DEFAULT_SOCKET_BUFFERS = new SocketBuffers(4 << 20, 1 << 20);

    private static final Set<String> KNOWN = ConfigReader.union(
            SecuritySettings.NAMES,
            SocketBuffers.NAMES,
            Set.of(
                    BOOTSTRAP_SERVERS,
                    CLIENT_ID,
                    GROUP_ID,
                    AUTO_OFFSET_RESET,
                    ENABLE_AUTO_COMMIT,
                    AUTO_COMMIT_INTERVAL_MS,
                    FETCH_MIN_BYTES,
                    FETCH_MAX_BYTES,
                    FETCH_MAX_WAIT_MS,
                    MAX_PARTITION_FETCH_BYTES,
                    CHECK_CRCS,
                    SESSION_TIMEOUT_MS,
                    HEARTBEAT_INTERVAL_MS,
                    MAX_POLL_INTERVAL_MS,
                    REQUEST_TIMEOUT_MS,
                    SOCKET_CONNECTION_SETUP_TIMEOUT_MS,
                    ISOLATION_LEVEL,
                    METADATA_MAX_AGE_MS,
                    TRANSPORT,
                    RdmaClientSettings.DEVICE,
                    RdmaClientSettings.PORT,
                    RdmaClientSettings.GID_INDEX,
                    RdmaClientSettings.READ_BYTES,
                    RdmaClientSettings.CREDITS));
    private static final AtomicInteger CLIENT_IDS = new AtomicInteger();

    /** What to do when a partition has no committed offset or its offset is out of range. */
    public enum OffsetReset {
        EARLIEST,
        LATEST,
        NONE
    }

    private final String bootstrapServers;
    private final String clientId;
    private final String groupId;
    private final OffsetReset autoOffsetReset;
    private final boolean autoCommit;
    private final long autoCommitIntervalMs;
    private final int fetchMinBytes;
    private final int fetchMaxBytes;
    private final int fetchMaxWaitMs;
    private final int maxPartitionFetchBytes;
    private final boolean checkCrcs;
    private final int sessionTimeoutMs;
    private final int heartbeatIntervalMs;
    private final int maxPollIntervalMs;
    private final long requestTimeoutMs;
    private final long connectionSetupTimeoutMs;
    private final byte isolationLevel;
    private final long metadataMaxAgeMs;
    private final Transport transport;
    private final RdmaClientSettings rdmaSettings;
    private final SecuritySettings security;
    private final SocketBuffers socketBuffers;

    public ConsumerConfig(final Map<String, ?> settings) {
        final ConfigReader r = new ConfigReader(settings, KNOWN, "consumer");
        bootstrapServers = r.string(BOOTSTRAP_SERVERS, null);
        if (bootstrapServers == null || bootstrapServers.isBlank()) {
            throw new IllegalArgumentException("consumer setting missing: key=" + BOOTSTRAP_SERVERS);
        }
        clientId = r.string(CLIENT_ID, "isthmus-consumer-" + CLIENT_IDS.incrementAndGet());
        groupId = r.string(GROUP_ID, null);
        autoOffsetReset = OffsetReset.valueOf(r.oneOf(AUTO_OFFSET_RESET, "latest", "earliest", "latest", "none")
                .toUpperCase(java.util.Locale.ROOT));
        autoCommit = r.bool(ENABLE_AUTO_COMMIT, groupId != null);
        autoCommitIntervalMs = r.longValue(AUTO_COMMIT_INTERVAL_MS, 5000, 0);
        fetchMinBytes = r.integer(FETCH_MIN_BYTES, 1, 0);
        fetchMaxBytes = r.integer(FETCH_MAX_BYTES, 52_428_800, 1);
        fetchMaxWaitMs = r.integer(FETCH_MAX_WAIT_MS, 500, 0);
        maxPartitionFetchBytes = r.integer(MAX_PARTITION_FETCH_BYTES, 1_048_576, 1);
        checkCrcs = r.bool(CHECK_CRCS, true);
        sessionTimeoutMs = r.integer(SESSION_TIMEOUT_MS, 45_000, 1);
        heartbeatIntervalMs = r.integer(HEARTBEAT_INTERVAL_MS, 3000, 1);
        maxPollIntervalMs = r.integer(MAX_POLL_INTERVAL_MS, 300_000, 1);
        requestTimeoutMs = r.longValue(REQUEST_TIMEOUT_MS, 30_000, 1);
        connectionSetupTimeoutMs =
                r.longValue(SOCKET_CONNECTION_SETUP_TIMEOUT_MS, BrokerConnections.DEFAULT_SETUP_TIMEOUT.toMillis(), 1);
        isolationLevel = r.oneOf(ISOLATION_LEVEL, "read_uncommitted", "read_uncommitted", "read_committed")
                        .equals("read_committed")
                ? (byte) 1
                : (byte) 0;
        metadataMaxAgeMs = r.longValue(METADATA_MAX_AGE_MS, 300_000, 0);
        transport = Transport.forName(r.string(TRANSPORT, "auto"));
        security = SecuritySettings.from(r);
        socketBuffers = SocketBuffers.from(r, DEFAULT_SOCKET_BUFFERS);
        rdmaSettings = RdmaClientSettings.from(r, requestTimeoutMs, security);
        if (autoCommit && groupId == null) {
            throw new IllegalArgumentException("enable.auto.commit=true needs a group.id");
        }
    }

    /** Every setting name the isthmus consumer knows; any other key is refused. */
    public static Set<String> names() {
        return KNOWN;
    }

    public static ConsumerConfig of(final Properties properties) {
        return new ConsumerConfig(ConfigReader.toMap(properties));
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    public String clientId() {
        return clientId;
    }

    /** The group id, or null for a consumer that only assigns partitions itself. */
    public String groupId() {
        return groupId;
    }

    public OffsetReset autoOffsetReset() {
        return autoOffsetReset;
    }

    public boolean autoCommit() {
        return autoCommit;
    }

    public long autoCommitIntervalMs() {
        return autoCommitIntervalMs;
    }

    public int fetchMinBytes() {
        return fetchMinBytes;
    }

    public int fetchMaxBytes() {
        return fetchMaxBytes;
    }

    public int fetchMaxWaitMs() {
        return fetchMaxWaitMs;
    }

    public int maxPartitionFetchBytes() {
        return maxPartitionFetchBytes;
    }

    public boolean checkCrcs() {
        return checkCrcs;
    }

    public int sessionTimeoutMs() {
        return sessionTimeoutMs;
    }

    public int heartbeatIntervalMs() {
        return heartbeatIntervalMs;
    }

    public int maxPollIntervalMs() {
        return maxPollIntervalMs;
    }

    public Duration requestTimeout() {
        return Duration.ofMillis(requestTimeoutMs);
    }

    /** {@code socket.connection.setup.timeout.ms}: the longest a new broker connection may take to be ready. */
    public Duration connectionSetupTimeout() {
        return Duration.ofMillis(connectionSetupTimeoutMs);
    }

    /** 0 read_uncommitted, 1 read_committed. */
    public byte isolationLevel() {
        return isolationLevel;
    }

    /**
     * {@code isolation.level=read_committed}: fetches stop at the last stable offset, and records of aborted
     * transactions and transaction markers are not handed out.
     */
    public boolean readCommitted() {
        return isolationLevel == 1;
    }

    /**
     * How often the group's leader looks at the partition counts of the subscribed topics again, to rebalance when a
     * topic gained partitions (or a subscribed topic appeared), as Kafka's leader does on its metadata refresh.
     */
    public long metadataMaxAgeMs() {
        return metadataMaxAgeMs;
    }

    /** {@code security.protocol} and SASL: how every connection of this client authenticates. */
    /** {@code receive.buffer.bytes} and {@code send.buffer.bytes} of every broker connection. */
    public SocketBuffers socketBuffers() {
        return socketBuffers;
    }

    public SecuritySettings security() {
        return security;
    }

    /** The {@code rdma.*} settings, used with transport rdma (or auto where RDMA is picked). */
    public RdmaClientSettings rdmaSettings() {
        return rdmaSettings;
    }

    public Transport transport() {
        return transport;
    }
}
