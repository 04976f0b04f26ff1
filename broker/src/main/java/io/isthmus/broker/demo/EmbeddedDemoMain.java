package io.isthmus.broker.demo;

import io.isthmus.broker.Broker;
import io.isthmus.client.tools.Demo;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import picocli.CommandLine;

/**
 * {@code ./isthmus demo [options]}: the client {@link Demo} against a broker started in this process over a
 * temporary directory, which is deleted afterwards. With {@code --bootstrap} the demo uses that broker
 * instead and nothing is embedded. Every option is the demo's own.
 */
public final class EmbeddedDemoMain {
    private EmbeddedDemoMain() {}

    public static void main(final String[] args) throws Exception {
        System.exit(run(args));
    }

    static int run(final String[] args) throws Exception {
        final CommandLine demo = new CommandLine(new Demo());
        if (wantsOwnBroker(args)) {
            return demo.execute(args);
        }
        final Path logDir = Files.createTempDirectory("isthmus-demo-");
        try (Broker broker = Broker.startEmbedded(logDir, Map.of())) {
            System.out.println(
                    "isthmus demo: embedded broker at " + broker.bootstrapServers() + ", log.dirs=" + logDir);
            final List<String> withBroker = new ArrayList<>(Arrays.asList(args));
            withBroker.add("--bootstrap");
            withBroker.add(broker.bootstrapServers());
            return demo.execute(withBroker.toArray(String[]::new));
        } finally {
            deleteRecursively(logDir);
        }
    }

    /** Help, version, or a broker given by the user: the demo needs no broker of ours. */
    private static boolean wantsOwnBroker(final String[] args) {
        for (final String arg : args) {
            if (arg.equals("--bootstrap")
                    || arg.startsWith("--bootstrap=")
                    || arg.equals("-h")
                    || arg.equals("--help")
                    || arg.equals("-V")
                    || arg.equals("--version")) {
                return true;
            }
        }
        return false;
    }

    private static void deleteRecursively(final Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (final Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot delete the demo's log directory " + dir, e);
        }
    }
}
