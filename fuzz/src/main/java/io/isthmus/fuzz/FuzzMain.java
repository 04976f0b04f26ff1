package io.isthmus.fuzz;

import io.isthmus.broker.Broker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ./isthmus fuzz}: a fuzz run against an embedded broker, or a broker given by {@code --bootstrap}. */
@Command(
        name = "isthmus fuzz",
        mixinStandardHelpOptions = true,
        description = "Sends generated and mutated Kafka request frames at a broker while a well-behaved client"
                + " produces and consumes; fails if the broker stops answering or an acknowledged record is lost.")
public final class FuzzMain implements Callable<Integer> {
    /**
     * Settings of the embedded broker under fuzz: small segments, room for the topics the fuzz creates, and the ACL
     * authorizer on, with every PLAINTEXT connection (the fuzzers and the well-behaved client, all {@code
     * User:ANONYMOUS}) a super user: every request passes through the authorizer, and the ACL APIs take the fuzz's
     * bindings, which must be refused or stored so that they read back.
     */
    static final Map<String, String> EMBEDDED_SETTINGS = Map.ofEntries(
            Map.entry("authorizer.class.name", "io.isthmus.broker.security.AclAuthorizer"),
            Map.entry("super.users", "User:ANONYMOUS"),
            Map.entry("listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0"),
            Map.entry("sasl.enabled.mechanisms", "SCRAM-SHA-256,SCRAM-SHA-512,PLAIN"),
            Map.entry(
                    "listener.name.sasl_plaintext.plain.sasl.jaas.config",
                    "org.apache.kafka.common.security.plain.PlainLoginModule required user_fuzz-0=\"fuzz\";"),
            Map.entry("log.segment.bytes", Integer.toString(1 << 20)),
            Map.entry("max.broker.partitions", "300"),
            Map.entry("num.network.threads", "2"));

    @Option(names = "--frames", description = "frames to deliver (default: ${DEFAULT-VALUE})")
    long frames = 1_000_000;

    @Option(names = "--connections", description = "fuzzing connections at once (default: ${DEFAULT-VALUE})")
    int connections = 8;

    @Option(names = "--seed", description = "the run's seed (default: the clock); print it to replay a run")
    Long seed;

    @Option(
            names = "--lie-probability",
            description = "the chance that one length or count in a body lies (default: ${DEFAULT-VALUE})")
    double lieProbability = 0.002;

    @Option(
            names = "--mutation-probability",
            description = "the chance that a whole frame is damaged (default: ${DEFAULT-VALUE})")
    double mutationProbability = 0.01;

    @Option(
            names = "--bootstrap",
            description = "HOST:PORT of a broker to fuzz instead of an embedded one (its data is not cleaned up)")
    String bootstrap;

    @Override
    public Integer call() throws Exception {
        final long runSeed = seed != null ? seed : System.nanoTime();
        final FuzzRun run = FuzzRun.of(frames, runSeed)
                .withConnections(connections)
                .withMutations(lieProbability, mutationProbability);
        System.out.printf("fuzz: seed %d, %,d frames over %d connections%n", runSeed, frames, connections);
        final FuzzReport report;
        if (bootstrap != null) {
            final int colon = bootstrap.lastIndexOf(':');
            report = run.against(bootstrap.substring(0, colon), Integer.parseInt(bootstrap.substring(colon + 1)));
        } else {
            final Path dir = Files.createTempDirectory("isthmus-fuzz-");
            try (Broker broker = Broker.startEmbedded(dir, EMBEDDED_SETTINGS)) {
                report = run.against(broker);
            } finally {
                deleteTree(dir);
            }
        }
        System.out.println(report.format());
        return report.passed() ? 0 : 1;
    }

    static void deleteTree(final Path dir) throws java.io.IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (final Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    public static void main(final String[] args) {
        // The fuzz makes the broker refuse a great deal, as it should; its INFO lines would drown the report.
        System.setProperty(
                "org.slf4j.simpleLogger.defaultLogLevel",
                System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"));
        System.exit(new CommandLine(new FuzzMain()).execute(args));
    }
}
