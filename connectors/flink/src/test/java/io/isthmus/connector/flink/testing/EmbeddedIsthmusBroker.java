package io.isthmus.connector.flink.testing;

import io.isthmus.broker.Broker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;

/** An isthmus broker in the test JVM on a fresh temporary log directory, sized for tests; closing removes the logs. */
public final class EmbeddedIsthmusBroker implements AutoCloseable {
    private final Path logDir;
    private final Broker broker;

    private EmbeddedIsthmusBroker(final Path logDir, final Broker broker) {
        this.logDir = logDir;
        this.broker = broker;
    }

    public static EmbeddedIsthmusBroker start() throws Exception {
        final Path logDir = Files.createTempDirectory("isthmus-flink-test");
        final Broker broker = Broker.startEmbedded(
                logDir, Map.of("log.segment.bytes", Integer.toString(16 * 1024 * 1024), "num.network.threads", "2"));
        return new EmbeddedIsthmusBroker(logDir, broker);
    }

    public String bootstrapServers() {
        return broker.bootstrapServers();
    }

    /** Where the logs lie: {@code <topic>-<partition>/<base offset>.log} below it. */
    public Path logDir() {
        return logDir;
    }

    @Override
    public void close() throws Exception {
        broker.close();
        try (Stream<Path> paths = Files.walk(logDir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
