package io.isthmus.cli;

import io.isthmus.broker.Broker;
import io.isthmus.broker.config.BrokerConfig;
import io.isthmus.ffi.Rdma;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
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
        final Map<String, String> overrides = rdmaOverrides(args);
        final Path logDir = Files.createTempDirectory("isthmus-demo-");
        try (Broker broker = Broker.startEmbedded(logDir, overrides)) {
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

    /**
     * With {@code --transport rdma} or {@code auto} and a usable device here, the embedded broker serves RDMA too (on
     * {@code ISTHMUS_RDMA_DEVICE}/{@code ISTHMUS_RDMA_GID_INDEX} when set, as in the Soft-RoCE guest), with segments of
     * 128 MiB: a granted segment is registered, so pinned, whole. Otherwise nothing changes.
     */
    static Map<String, String> rdmaOverrides(final String[] args) {
        String transport = "auto";
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--transport") && i + 1 < args.length) {
                transport = args[i + 1];
            } else if (args[i].startsWith("--transport=")) {
                transport = args[i].substring("--transport=".length());
            }
        }
        final String wanted = transport.trim().toLowerCase(Locale.ROOT);
        if (!(wanted.equals("rdma") || wanted.equals("auto"))
                || !Rdma.availability().usable()) {
            return Map.of();
        }
        final Map<String, String> overrides = new HashMap<>();
        overrides.put(BrokerConfig.RDMA_ENABLED, "true");
        overrides.put("log.segment.bytes", Integer.toString(128 * 1024 * 1024));
        final String device = System.getenv("ISTHMUS_RDMA_DEVICE");
        if (device != null && !device.isBlank()) {
            overrides.put(BrokerConfig.RDMA_DEVICE, device);
        }
        final String gidIndex = System.getenv("ISTHMUS_RDMA_GID_INDEX");
        if (gidIndex != null && !gidIndex.isBlank()) {
            overrides.put(BrokerConfig.RDMA_GID_INDEX, gidIndex);
        }
        return overrides;
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
