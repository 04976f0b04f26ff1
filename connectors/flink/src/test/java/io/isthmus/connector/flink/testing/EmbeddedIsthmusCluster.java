package io.isthmus.connector.flink.testing;

import io.isthmus.broker.Broker;
import io.isthmus.broker.config.BrokerConfig;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A cluster of isthmus brokers in the test JVM, each a voter of the metadata quorum, on fresh temporary directories:
 * topics of three replicas need two in sync for acks=all, and the transaction state topic is replicated the same way,
 * so a broker can leave under a running job. Closing stops every broker and removes the directories.
 */
public final class EmbeddedIsthmusCluster implements AutoCloseable {
    private static final Duration ACTIVE_WITHIN = Duration.ofSeconds(60);

    private final Path directory;
    private final String voters;
    private final int size;
    private final Map<Integer, Broker> running = new TreeMap<>();

    private EmbeddedIsthmusCluster(final Path directory, final String voters, final int size) {
        this.directory = directory;
        this.voters = voters;
        this.size = size;
    }

    /** Formats and starts {@code size} brokers, ids 1 to {@code size}, and waits until every one is active. */
    public static EmbeddedIsthmusCluster start(final int size) throws Exception {
        final List<String> entries = new ArrayList<>();
        for (int id = 1; id <= size; id++) {
            entries.add(id + "@127.0.0.1:" + freePort());
        }
        final EmbeddedIsthmusCluster cluster = new EmbeddedIsthmusCluster(
                Files.createTempDirectory("isthmus-flink-cluster"), String.join(",", entries), size);
        try {
            for (int id = 1; id <= size; id++) {
                Broker.format(cluster.config(id));
                cluster.startBroker(id);
            }
            for (final Broker broker : cluster.running.values()) {
                broker.cluster().orElseThrow().awaitActive(ACTIVE_WITHIN);
            }
        } catch (final Exception e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    /** The running brokers' addresses. */
    public synchronized String bootstrapServers() {
        return running.values().stream().map(Broker::bootstrapServers).collect(Collectors.joining(","));
    }

    /** Stops broker {@code id} the way SIGTERM does: its leaderships move to in-sync followers first. */
    public void stop(final int id) throws InterruptedException {
        final Broker broker;
        synchronized (this) {
            broker = running.remove(id);
        }
        if (broker != null) {
            broker.close();
        }
    }

    /** Starts broker {@code id} again on its directories and waits until it is active. */
    public void restart(final int id) throws Exception {
        startBroker(id);
        final Broker broker;
        synchronized (this) {
            broker = running.get(id);
        }
        broker.cluster().orElseThrow().awaitActive(ACTIVE_WITHIN);
    }

    private void startBroker(final int id) throws Exception {
        final Broker broker = Broker.start(config(id));
        synchronized (this) {
            running.put(id, broker);
        }
    }

    private BrokerConfig config(final int id) {
        final Map<String, String> settings = new HashMap<>();
        settings.put(BrokerConfig.NODE_ID, Integer.toString(id));
        settings.put(BrokerConfig.PROCESS_ROLES, "broker,controller");
        settings.put(BrokerConfig.CONTROLLER_QUORUM_VOTERS, voters);
        settings.put(BrokerConfig.CLUSTER_ID, "flink-test-cluster");
        settings.put(BrokerConfig.LISTENERS, "PLAINTEXT://127.0.0.1:0");
        settings.put(BrokerConfig.LOG_DIRS, directory.resolve("broker-" + id).toString());
        settings.put(BrokerConfig.BROKER_HEARTBEAT_INTERVAL_MS, "200");
        settings.put(BrokerConfig.BROKER_SESSION_TIMEOUT_MS, "3000");
        settings.put(BrokerConfig.CONTROLLER_QUORUM_ELECTION_TIMEOUT_MS, "500");
        settings.put(BrokerConfig.MIN_INSYNC_REPLICAS, Integer.toString(Math.min(2, size)));
        settings.put(BrokerConfig.REPLICA_LAG_TIME_MAX_MS, "5000");
        settings.put(BrokerConfig.REPLICA_FETCH_WAIT_MAX_MS, "200");
        settings.put(BrokerConfig.TRANSACTION_STATE_LOG_NUM_PARTITIONS, "6");
        settings.put(BrokerConfig.TRANSACTION_STATE_LOG_REPLICATION_FACTOR, Integer.toString(Math.min(3, size)));
        settings.put(BrokerConfig.TRANSACTION_STATE_LOG_MIN_ISR, Integer.toString(Math.min(2, size)));
        settings.put(BrokerConfig.OFFSETS_TOPIC_NUM_PARTITIONS, "6");
        settings.put(BrokerConfig.OFFSETS_TOPIC_REPLICATION_FACTOR, Integer.toString(Math.min(3, size)));
        settings.put("log.segment.bytes", Integer.toString(16 * 1024 * 1024));
        settings.put("num.network.threads", "2");
        return BrokerConfig.of(settings);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() throws Exception {
        final List<Broker> brokers;
        synchronized (this) {
            brokers = new ArrayList<>(running.values());
            running.clear();
        }
        for (final Broker broker : brokers) {
            broker.close();
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
