package io.isthmus.testing;

import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * An Apache Kafka 4.4 KRaft broker+controller in this JVM on loopback: storage formatted in-process, internal topics
 * at replication factor 1, no initial rebalance delay. The real Kafka that the end-to-end tests and the connectors'
 * tests run the isthmus clients against.
 */
public final class ApacheKafkaBroker implements AutoCloseable {
    private final KafkaRaftServer server;
    private final int port;

    private ApacheKafkaBroker(final KafkaRaftServer server, final int port) {
        this.server = server;
        this.port = port;
    }

    /** Starts a broker whose logs live under {@code dir}. */
    public static ApacheKafkaBroker start(final Path dir) throws Exception {
        final int port = freePort();
        final int controllerPort = freePort();
        final String logDir = dir.resolve("kafka-logs").toString();
        final Properties props = new Properties();
        props.put("process.roles", "broker,controller");
        props.put("node.id", "1");
        props.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        props.put("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
        props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
        props.put("controller.listener.names", "CONTROLLER");
        props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        props.put("inter.broker.listener.name", "PLAINTEXT");
        props.put("log.dirs", logDir);
        props.put("offsets.topic.replication.factor", "1");
        props.put("offsets.topic.num.partitions", "1");
        props.put("transaction.state.log.replication.factor", "1");
        props.put("transaction.state.log.min.isr", "1");
        props.put("share.coordinator.state.topic.replication.factor", "1");
        props.put("share.coordinator.state.topic.min.isr", "1");
        props.put("group.initial.rebalance.delay.ms", "0");
        props.put("num.partitions", "1");
        final KafkaConfig config = KafkaConfig.fromProps(props);
        new Formatter()
                .setPrintStream(new PrintStream(PrintStream.nullOutputStream()))
                .setClusterId(Uuid.randomUuid().toString())
                .setNodeId(1)
                .setDirectories(List.of(logDir))
                .setMetadataLogDirectory(logDir)
                .setControllerListenerName("CONTROLLER")
                .setReleaseVersion(MetadataVersion.latestProduction())
                .run();
        final KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
        server.startup();
        return new ApacheKafkaBroker(server, port);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    @Override
    public void close() {
        server.shutdown();
        server.awaitShutdown();
    }
}
