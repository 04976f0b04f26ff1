package io.isthmus.broker;

import io.isthmus.broker.config.BrokerConfig;
import io.isthmus.broker.config.Endpoint;
import io.isthmus.broker.log.LogConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.common.config.ConfigException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ./isthmus broker [--config FILE] [key=value ...]}: runs a broker until SIGTERM or Ctrl-C. */
@Command(
        name = "isthmus broker",
        mixinStandardHelpOptions = true,
        description = "Runs an isthmus broker speaking the Kafka protocol. Settings use Kafka's names.",
        footer = "Example: ./isthmus broker listeners=PLAINTEXT://127.0.0.1:9092 log.dirs=/tmp/isthmus")
public final class BrokerMain implements Callable<Integer> {
    /** What the broker prints, followed by the endpoint, for each listener once it is bound: launchers wait for it. */
    public static final String LISTENING = "isthmus broker listening on ";

    @Option(names = "--config", paramLabel = "FILE", description = "A properties file, as Kafka's server.properties.")
    private Path configFile;

    @Option(names = "--help-config", description = "Lists every broker setting with its default, then exits.")
    private boolean helpConfig;

    @Option(
            names = "--format",
            description = "A node of a cluster (process.roles set): formats its metadata directory for cluster.id and"
                    + " node.id first, as Kafka's kafka-storage format; nothing changes if it was formatted for them.")
    private boolean format;

    @Parameters(paramLabel = "key=value", description = "Settings that override the file, in order.")
    private List<String> overrides = new ArrayList<>();

    public static void main(final String[] args) {
        System.exit(new CommandLine(new BrokerMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (helpConfig) {
            System.out.println(BrokerConfig.DEFINITION.toEnrichedRst());
            System.out.println(LogConfig.DEFINITION.toEnrichedRst());
            return 0;
        }
        final BrokerConfig config;
        try {
            config = BrokerConfig.load(configFile, overrides);
        } catch (final ConfigException e) {
            System.err.println("isthmus broker: " + e.getMessage());
            return 2;
        }
        if (format) {
            try {
                Broker.format(config);
            } catch (final ConfigException | IllegalStateException e) {
                System.err.println("isthmus broker: cannot format: " + e.getMessage());
                return 2;
            }
        }
        final Broker broker;
        try {
            broker = Broker.start(config);
        } catch (final ConfigException e) {
            System.err.println("isthmus broker: " + e.getMessage());
            return 2;
        }
        final CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            try {
                                broker.close();
                            } catch (final InterruptedException e) {
                                Thread.currentThread().interrupt();
                            } finally {
                                stopped.countDown();
                            }
                        },
                        "isthmus-shutdown"));
        for (final Endpoint endpoint : broker.endpoints()) {
            System.out.println(LISTENING + endpoint);
        }
        System.out.println("log.dirs=" + String.join(",", config.getList(BrokerConfig.LOG_DIRS)));
        stopped.await();
        return 0;
    }
}
