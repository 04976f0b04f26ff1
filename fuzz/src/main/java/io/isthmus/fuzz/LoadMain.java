package io.isthmus.fuzz;

import io.isthmus.broker.Broker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ./isthmus load}: the good client's throughput on an idle broker and under hostile connections, side by side. */
@Command(
        name = "isthmus load",
        mixinStandardHelpOptions = true,
        description = "Measures a kafka-clients producer and consumer on an embedded broker, idle and while"
                + " hostile connections (idle, never reading, sending half frames) hold it, in alternating rounds.")
public final class LoadMain implements Callable<Integer> {
    @Option(names = "--connections", description = "hostile connections (default: ${DEFAULT-VALUE})")
    int connections = 1_000;

    @Option(names = "--slow-readers", description = "of those, never reading (default: ${DEFAULT-VALUE})")
    int slowReaders = 100;

    @Option(names = "--partial-frames", description = "of those, sending half frames (default: ${DEFAULT-VALUE})")
    int partialFrames = 100;

    @Option(names = "--records", description = "records per round (default: ${DEFAULT-VALUE})")
    int records = 200_000;

    @Option(names = "--repetitions", description = "rounds of each kind (default: ${DEFAULT-VALUE})")
    int repetitions = 3;

    @Option(
            names = "--request-read-timeout-ms",
            description = "the broker's isthmus.request.read.timeout.ms (default: ${DEFAULT-VALUE})")
    long requestReadTimeoutMs = 1_000;

    @Override
    public Integer call() throws Exception {
        final Path dir = Files.createTempDirectory("isthmus-load-");
        final Map<String, String> settings = new HashMap<>(FuzzMain.EMBEDDED_SETTINGS);
        settings.put("isthmus.request.read.timeout.ms", Long.toString(requestReadTimeoutMs));
        settings.put("log.segment.bytes", Integer.toString(64 << 20));
        final LoadReport report;
        try (Broker broker = Broker.startEmbedded(dir, settings)) {
            report = new LoadRun(connections, slowReaders, partialFrames, records, repetitions).against(broker);
        } finally {
            FuzzMain.deleteTree(dir);
        }
        System.out.println(report.format());
        return report.brokerAlive() && report.serverErrors() == 0 ? 0 : 1;
    }

    public static void main(final String[] args) {
        System.setProperty(
                "org.slf4j.simpleLogger.defaultLogLevel",
                System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"));
        System.exit(new CommandLine(new LoadMain()).execute(args));
    }
}
