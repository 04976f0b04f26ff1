package io.isthmus.benchmarks.harness;

import io.isthmus.broker.BrokerMain;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** One broker in its own JVM, started through its real entry point, with its log directory and CPU accounting. */
public final class BrokerUnderTest implements AutoCloseable {
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(120);

    private final BrokerKind kind;
    private final ChildJvm jvm;
    private final int port;
    private final Path logDir;

    private BrokerUnderTest(final BrokerKind kind, final ChildJvm jvm, final int port, final Path logDir) {
        this.kind = kind;
        this.jvm = jvm;
        this.port = port;
        this.logDir = logDir;
    }

    /** Starts the broker with its log directory under {@code dataRoot} and its output in {@code logs/}. */
    public static BrokerUnderTest start(final BrokerKind kind, final Path dataRoot, final Path logs)
            throws IOException {
        final Path logDir = Files.createDirectories(dataRoot.resolve(kind.label() + "-logs"));
        final int port = freePort();
        final List<String> args;
        final String mainClass;
        final String readyPrefix;
        if (kind == BrokerKind.ISTHMUS) {
            mainClass = BrokerMain.class.getName();
            args = List.of("listeners=PLAINTEXT://127.0.0.1:" + port, "log.dirs=" + logDir);
            readyPrefix = "isthmus broker listening on";
        } else {
            mainClass = KafkaBrokerMain.class.getName();
            args = List.of(Integer.toString(port), Integer.toString(freePort()), logDir.toString());
            readyPrefix = KafkaBrokerMain.READY_PREFIX;
        }
        final ChildJvm jvm = ChildJvm.start(
                kind.label() + "-broker",
                BrokerSettings.brokerJvmOptions(),
                mainClass,
                args,
                logs.resolve(kind.label() + "-broker.log"),
                (line, pid) -> {});
        final CompletableFuture<String> ready = jvm.expectLine(readyPrefix);
        try {
            jvm.awaitLine(ready, STARTUP_TIMEOUT);
        } catch (final IOException e) {
            closeQuietly(jvm);
            throw e;
        }
        return new BrokerUnderTest(kind, jvm, port, logDir);
    }

    public BrokerKind kind() {
        return kind;
    }

    public String bootstrap() {
        return "127.0.0.1:" + port;
    }

    public long pid() {
        return jvm.pid();
    }

    public Duration cpuTime() {
        return jvm.cpuTime();
    }

    public Path logDir() {
        return logDir;
    }

    /** Bytes the log directory holds now (tmpfs memory in use by this broker's data). */
    public long logDirBytes() throws IOException {
        try (var files = Files.walk(logDir)) {
            return files.filter(Files::isRegularFile)
                    .mapToLong(path -> {
                        try {
                            return Files.size(path);
                        } catch (final IOException gone) {
                            return 0;
                        }
                    })
                    .sum();
        }
    }

    @Override
    public void close() throws InterruptedException, IOException {
        jvm.close();
        deleteTree(logDir);
    }

    private static void closeQuietly(final ChildJvm jvm) {
        try {
            jvm.close();
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    static void deleteTree(final Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (var paths = Files.walk(root)) {
            for (final Path path :
                    paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
