package io.isthmus.benchmarks.harness;

import io.isthmus.broker.BrokerMain;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;

/**
 * The broker side of a case: one broker, or a cluster of several where every broker is also a voter of the metadata
 * quorum (Kafka's combined mode, as {@code ./isthmus cluster} runs isthmus). Each broker runs in its own JVM, started
 * through its real entry point, with its own log directory; CPU time is the sum over all of them.
 *
 * <p>A cluster runs with {@code default.replication.factor} (a replica on every broker) and {@code min.insync.replicas}
 * ({@value #CLUSTER_MIN_INSYNC} in sync for acks=all) set on every broker of both kinds, so that a topic the harness
 * creates with one replica per broker is held to the same acks=all rule on both.
 */
public final class BrokerUnderTest implements AutoCloseable {
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(120);
    private static final Duration POLL = Duration.ofMillis(200);

    /** The in-sync replicas an acks=all produce needs on a cluster: a majority of three. */
    static final int CLUSTER_MIN_INSYNC = 2;

    private final BrokerKind kind;
    private final List<ChildJvm> jvms;
    private final List<Integer> ports;
    private final Path dataDir;

    private BrokerUnderTest(
            final BrokerKind kind, final List<ChildJvm> jvms, final List<Integer> ports, final Path dataDir) {
        this.kind = kind;
        this.jvms = List.copyOf(jvms);
        this.ports = List.copyOf(ports);
        this.dataDir = dataDir;
    }

    /**
     * Starts {@code brokers} brokers of {@code kind} (ids 1 to {@code brokers}) with their log directories under
     * {@code dataRoot} and their output in {@code logs/}, and returns once every one of them is registered and
     * serving: DescribeCluster answers all of them.
     */
    public static BrokerUnderTest start(final BrokerKind kind, final int brokers, final Path dataRoot, final Path logs)
            throws IOException, InterruptedException {
        if (brokers < 1) {
            throw new IllegalArgumentException("a broker under test needs at least one broker, got " + brokers);
        }
        final String label = brokers == 1 ? kind.label() : kind.label() + "-x" + brokers;
        final Path dataDir = Files.createDirectories(dataRoot.resolve(label + "-logs"));
        final List<Integer> ports = new ArrayList<>();
        final List<Integer> quorumPorts = new ArrayList<>();
        for (int i = 0; i < brokers; i++) {
            ports.add(freePort());
            quorumPorts.add(freePort());
        }
        final String voters = voters(quorumPorts);
        final String clusterId =
                kind == BrokerKind.KAFKA ? Uuid.randomUuid().toString() : "isthmus-bench-" + UUID.randomUUID();
        final List<ChildJvm> jvms = new ArrayList<>();
        final List<CompletableFuture<String>> ready = new ArrayList<>();
        try {
            // All at once: a voter waits for its peers before it serves, so starting them one by one would deadlock.
            for (int i = 0; i < brokers; i++) {
                final int id = i + 1;
                final Path logDir = brokers == 1 ? dataDir : Files.createDirectories(dataDir.resolve("broker-" + id));
                final Launch launch = brokers == 1
                        ? single(kind, ports.get(i), quorumPorts.get(i), logDir)
                        : member(kind, id, brokers, ports.get(i), quorumPorts.get(i), voters, clusterId, logDir);
                final String name = brokers == 1 ? label + "-broker" : label + "-broker-" + id;
                final ChildJvm jvm = ChildJvm.start(
                        name,
                        BrokerSettings.brokerJvmOptions(),
                        launch.mainClass(),
                        launch.args(),
                        logs.resolve(name + ".log"),
                        (line, pid) -> {});
                jvms.add(jvm);
                ready.add(jvm.expectLine(launch.readyPrefix()));
            }
            for (int i = 0; i < brokers; i++) {
                jvms.get(i).awaitLine(ready.get(i), STARTUP_TIMEOUT);
            }
            final BrokerUnderTest started = new BrokerUnderTest(kind, jvms, ports, dataDir);
            if (brokers > 1) {
                started.awaitRegistered();
            }
            return started;
        } catch (final IOException | RuntimeException | InterruptedException e) {
            jvms.forEach(ChildJvm::terminate);
            for (final ChildJvm jvm : jvms) {
                closeQuietly(jvm);
            }
            throw e;
        }
    }

    /** How one broker process is launched: its main class, its arguments and the line that says it listens. */
    private record Launch(String mainClass, List<String> args, String readyPrefix) {}

    private static Launch single(final BrokerKind kind, final int port, final int quorumPort, final Path logDir) {
        if (kind == BrokerKind.ISTHMUS) {
            return new Launch(
                    BrokerMain.class.getName(),
                    List.of("listeners=PLAINTEXT://127.0.0.1:" + port, "log.dirs=" + logDir),
                    BrokerMain.LISTENING);
        }
        return new Launch(
                KafkaBrokerMain.class.getName(),
                List.of(Integer.toString(port), Integer.toString(quorumPort), logDir.toString()),
                KafkaBrokerMain.READY_PREFIX);
    }

    private static Launch member(
            final BrokerKind kind,
            final int id,
            final int brokers,
            final int port,
            final int quorumPort,
            final String voters,
            final String clusterId,
            final Path logDir) {
        final List<String> replication =
                List.of("default.replication.factor=" + brokers, "min.insync.replicas=" + CLUSTER_MIN_INSYNC);
        final List<String> args = new ArrayList<>();
        if (kind == BrokerKind.ISTHMUS) {
            args.addAll(List.of(
                    "--format",
                    "process.roles=broker,controller",
                    "node.id=" + id,
                    "controller.quorum.voters=" + voters,
                    "cluster.id=" + clusterId,
                    "listeners=PLAINTEXT://127.0.0.1:" + port,
                    "log.dirs=" + logDir));
            args.addAll(replication);
            return new Launch(BrokerMain.class.getName(), args, BrokerMain.LISTENING);
        }
        args.addAll(List.of(
                Integer.toString(port),
                Integer.toString(quorumPort),
                logDir.toString(),
                "node.id=" + id,
                "controller.quorum.voters=" + voters,
                KafkaBrokerMain.CLUSTER_ID + "=" + clusterId,
                "offsets.topic.replication.factor=" + brokers,
                "transaction.state.log.replication.factor=" + brokers,
                "transaction.state.log.min.isr=" + CLUSTER_MIN_INSYNC));
        args.addAll(replication);
        return new Launch(KafkaBrokerMain.class.getName(), args, KafkaBrokerMain.READY_PREFIX);
    }

    private static String voters(final List<Integer> quorumPorts) {
        final List<String> voters = new ArrayList<>();
        for (int i = 0; i < quorumPorts.size(); i++) {
            voters.add((i + 1) + "@127.0.0.1:" + quorumPorts.get(i));
        }
        return String.join(",", voters);
    }

    /** Waits until DescribeCluster answers every broker: each registered with the quorum and unfenced. */
    private void awaitRegistered() throws IOException, InterruptedException {
        final Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        props.put(AdminClientConfig.CLIENT_ID_CONFIG, "bench-startup-" + kind.label());
        final long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        int seen = 0;
        try (Admin admin = Admin.create(props)) {
            while (System.nanoTime() < deadline) {
                try {
                    seen = admin.describeCluster()
                            .nodes()
                            .get(10, TimeUnit.SECONDS)
                            .size();
                    if (seen == jvms.size()) {
                        return;
                    }
                } catch (final ExecutionException | TimeoutException notYet) {
                    // No controller or no metadata yet: asked again below.
                }
                Thread.sleep(POLL.toMillis());
            }
        }
        throw new IOException(kind.label() + " cluster: " + seen + " of " + jvms.size() + " brokers registered after "
                + STARTUP_TIMEOUT.toSeconds() + " s");
    }

    public BrokerKind kind() {
        return kind;
    }

    /** How many brokers: the replication factor of the topics the harness creates here. */
    public int brokers() {
        return jvms.size();
    }

    /** Every broker's listener, comma-separated. */
    public String bootstrap() {
        return ports.stream().map(port -> "127.0.0.1:" + port).collect(Collectors.joining(","));
    }

    public List<Long> pids() {
        return jvms.stream().map(ChildJvm::pid).toList();
    }

    /** CPU time of all the brokers together. */
    public Duration cpuTime() {
        Duration total = Duration.ZERO;
        for (final ChildJvm jvm : jvms) {
            total = total.plus(jvm.cpuTime());
        }
        return total;
    }

    /** The directory holding every broker's log directory. */
    public Path dataDir() {
        return dataDir;
    }

    /** Stops the brokers together (SIGTERM to all, then waiting for each) and deletes their data. */
    @Override
    public void close() throws InterruptedException, IOException {
        jvms.forEach(ChildJvm::terminate);
        for (final ChildJvm jvm : jvms) {
            jvm.close();
        }
        deleteTree(dataDir);
    }

    private static void closeQuietly(final ChildJvm jvm) {
        try {
            jvm.close();
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    static void deleteTree(final Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (var paths = Files.walk(root)) {
            for (final Path path :
                    paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
