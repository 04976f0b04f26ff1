package io.isthmus.benchmarks.harness;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * The baseline broker: one Apache Kafka KRaft node (broker and controller in one process, as a single-node cluster is
 * run), in its own JVM. Formats its log directory in-process, starts {@link KafkaRaftServer}, prints {@value
 * #READY_PREFIX} and the listener, and runs until SIGTERM.
 *
 * <p>Usage: {@code KafkaBrokerMain PORT CONTROLLER_PORT LOG_DIR [key=value ...]}; the extra settings override the
 * defaults below. Alone, every internal topic has replication factor 1 and groups start without the initial rebalance
 * delay. A node of a cluster gets {@code node.id}, the cluster's {@code controller.quorum.voters} and the cluster's id
 * as {@value #CLUSTER_ID} (the id every node's directory is formatted with; not a broker setting, so it is taken out).
 */
public final class KafkaBrokerMain {
    public static final String READY_PREFIX = "kafka broker listening on ";

    /** The argument naming the cluster id to format with; absent, a random one (a cluster of this node alone). */
    public static final String CLUSTER_ID = "bench.cluster.id";

    private KafkaBrokerMain() {}

    public static void main(final String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: KafkaBrokerMain PORT CONTROLLER_PORT LOG_DIR [key=value ...]");
            System.exit(2);
        }
        final int port = Integer.parseInt(args[0]);
        final int controllerPort = Integer.parseInt(args[1]);
        final Path logDir = Path.of(args[2]).toAbsolutePath();
        final Properties props = new Properties();
        props.putAll(defaults(port, controllerPort, logDir));
        for (final String override : List.of(args).subList(3, args.length)) {
            final int eq = override.indexOf('=');
            props.put(override.substring(0, eq), override.substring(eq + 1));
        }
        final Object clusterId = props.remove(CLUSTER_ID);
        new Formatter()
                .setPrintStream(System.out)
                .setClusterId(clusterId == null ? Uuid.randomUuid().toString() : clusterId.toString())
                .setNodeId(Integer.parseInt(props.getProperty("node.id")))
                .setControllerListenerName("CONTROLLER")
                .setMetadataLogDirectory(logDir.toString())
                .setDirectories(List.of(logDir.toString()))
                .setReleaseVersion(MetadataVersion.latestProduction())
                .run();
        final KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
        final CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            server.shutdown();
                            server.awaitShutdown();
                            stopped.countDown();
                        },
                        "kafka-shutdown"));
        server.startup();
        System.out.println(READY_PREFIX + "PLAINTEXT://127.0.0.1:" + port);
        stopped.await();
    }

    /** The single-node settings; see {@link BrokerSettings} for what is kept equal between the two brokers. */
    static Map<String, String> defaults(final int port, final int controllerPort, final Path logDir) {
        return Map.ofEntries(
                Map.entry("process.roles", "broker,controller"),
                Map.entry("node.id", "1"),
                Map.entry("controller.quorum.voters", "1@127.0.0.1:" + controllerPort),
                Map.entry("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort),
                Map.entry("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port),
                Map.entry("controller.listener.names", "CONTROLLER"),
                Map.entry("inter.broker.listener.name", "PLAINTEXT"),
                Map.entry("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"),
                Map.entry("log.dirs", logDir.toString()),
                Map.entry("offsets.topic.replication.factor", "1"),
                Map.entry("offsets.topic.num.partitions", "1"),
                Map.entry("transaction.state.log.replication.factor", "1"),
                Map.entry("transaction.state.log.min.isr", "1"),
                Map.entry("share.coordinator.state.topic.replication.factor", "1"),
                Map.entry("share.coordinator.state.topic.min.isr", "1"),
                Map.entry("group.initial.rebalance.delay.ms", "0"),
                Map.entry("auto.create.topics.enable", "true"),
                // Deleted topics free their tmpfs memory at once instead of after a minute.
                Map.entry("log.segment.delete.delay.ms", "0"));
    }
}
