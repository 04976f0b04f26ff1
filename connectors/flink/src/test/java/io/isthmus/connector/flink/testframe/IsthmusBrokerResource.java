package io.isthmus.connector.flink.testframe;

import io.isthmus.broker.Broker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.flink.connector.testframe.TestResource;

/** The external system of Flink's connector test suites: an isthmus broker in the test JVM, on a fresh directory. */
public final class IsthmusBrokerResource implements TestResource {
    private Path logDir;
    private Broker broker;

    @Override
    public void startUp() throws Exception {
        logDir = Files.createTempDirectory("isthmus-flink-suite");
        broker = Broker.startEmbedded(
                logDir, Map.of("log.segment.bytes", Integer.toString(16 * 1024 * 1024), "num.network.threads", "2"));
    }

    @Override
    public void tearDown() throws Exception {
        if (broker != null) {
            broker.close();
        }
        if (logDir != null) {
            try (Stream<Path> paths = Files.walk(logDir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    public String bootstrapServers() {
        return broker.bootstrapServers();
    }

    @Override
    public String toString() {
        return "isthmus broker";
    }
}
