package io.isthmus.cli;

import io.isthmus.broker.config.BrokerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.common.config.ConfigException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ./isthmus cluster --brokers N}: a local cluster of broker processes, until Ctrl-C. */
@Command(
        name = "isthmus cluster",
        mixinStandardHelpOptions = true,
        description = "Starts a cluster of isthmus brokers on this host, each its own process, directory and ports, and"
                + " prints the bootstrap servers. Brokers 1 to --voters are also voters of the metadata quorum, the"
                + " others broker-only nodes. Topics get"
                + " default.replication.factor=min(3, brokers) and min.insync.replicas=min(2, brokers) unless given,"
                + " and the transaction state topic the same (transaction.state.log.replication.factor,"
                + " transaction.state.log.min.isr), the committed-offsets topic"
                + " offsets.topic.replication.factor=min(3, brokers)."
                + " Ctrl-C stops them.",
        footer = "Example: ./isthmus cluster --brokers 3, then ./isthmus topics --bootstrap <printed> --describe")
public final class ClusterMain implements Callable<Integer> {
    @Option(names = "--brokers", defaultValue = "3", description = "How many brokers (default ${DEFAULT-VALUE}).")
    int brokers;

    @Option(
            names = "--voters",
            description = "How many of the brokers also vote in the metadata quorum (default: all of them; an odd"
                    + " number, since a majority of voters must be up for any metadata to change).")
    Integer voters;

    @Option(
            names = "--dir",
            description = "Where the brokers keep their data and output (default: a new temporary directory).")
    Path directory;

    @Parameters(paramLabel = "key=value", description = "Broker settings every broker gets (Kafka-style keys).")
    List<String> settings = new ArrayList<>();

    public static void main(final String[] args) {
        System.exit(new CommandLine(new ClusterMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        final Map<String, String> extra;
        try {
            extra = BrokerConfig.parseSettings(settings);
        } catch (final ConfigException e) {
            System.err.println("isthmus cluster: " + e.getMessage());
            return 2;
        }
        // Replicated unless told otherwise: three copies of each partition where there are three brokers, and acks=all
        // refused while fewer than two are in sync (it is answered once every in-sync replica holds the record), as
        // Kafka's usual production settings.
        final Map<String, String> withDefaults = new java.util.HashMap<>();
        withDefaults.put(BrokerConfig.DEFAULT_REPLICATION_FACTOR, Integer.toString(Math.min(3, brokers)));
        withDefaults.put(BrokerConfig.MIN_INSYNC_REPLICAS, Integer.toString(Math.min(2, brokers)));
        // The transaction state topic the same way, so transactional producers work on a cluster of one or two too.
        withDefaults.put(BrokerConfig.TRANSACTION_STATE_LOG_REPLICATION_FACTOR, Integer.toString(Math.min(3, brokers)));
        withDefaults.put(BrokerConfig.TRANSACTION_STATE_LOG_MIN_ISR, Integer.toString(Math.min(2, brokers)));
        // And the committed offsets of consumer groups, so groups have coordinators on a cluster of one or two too.
        withDefaults.put(BrokerConfig.OFFSETS_TOPIC_REPLICATION_FACTOR, Integer.toString(Math.min(3, brokers)));
        withDefaults.putAll(extra);
        final Path dir = directory != null ? directory : Files.createTempDirectory("isthmus-cluster-");
        final int voterCount = voters == null ? brokers : voters;
        if (voterCount < 1 || voterCount > brokers) {
            System.err.println(
                    "isthmus cluster: --voters must be between 1 and --brokers (" + brokers + "), got " + voterCount);
            return 2;
        }
        final LocalCluster cluster = LocalCluster.plan(brokers, voterCount, dir, withDefaults);
        final CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            try {
                                cluster.close();
                            } catch (final InterruptedException e) {
                                Thread.currentThread().interrupt();
                            } finally {
                                stopped.countDown();
                            }
                        },
                        "isthmus-cluster-shutdown"));
        cluster.startAll(Duration.ofSeconds(120));
        System.out.println("isthmus cluster: " + brokers + " brokers (" + voterCount + " voting in the metadata"
                + " quorum), directory " + dir);
        for (final int id : cluster.brokerIds()) {
            System.out.println("  broker " + id + (id <= voterCount ? " (voter)" : "") + ": " + cluster.address(id)
                    + " (pid " + cluster.pid(id) + ", output "
                    + dir.resolve("broker-" + id + ".log") + ")");
        }
        System.out.println("bootstrap.servers=" + cluster.bootstrapServers());
        System.out.flush();
        stopped.await();
        return 0;
    }
}
