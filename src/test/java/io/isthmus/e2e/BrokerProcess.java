package io.isthmus.e2e;

import io.isthmus.broker.BrokerMain;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** A broker in a child JVM started through its real entry point, so a test can kill -9 it. */
public final class BrokerProcess implements AutoCloseable {
    private final Process process;

    private BrokerProcess(final Process process) {
        this.process = process;
    }

    /** Starts {@code BrokerMain} and waits until it prints that it listens. */
    public static BrokerProcess start(final Path logDir, final int port, final String... settings) throws IOException {
        return start(List.of(), logDir, port, settings);
    }

    /**
     * Starts {@code BrokerMain} inside a new user and mount namespace with a tmpfs of {@code megabytes} MiB mounted at
     * {@code mountPoint} ({@code unshare -rm}, no privileges needed where the kernel allows user namespaces), its log
     * in {@code mountPoint/logs}: a file system that fills up, for real.
     */
    static BrokerProcess startOnSmallFileSystem(
            final Path mountPoint, final int megabytes, final int port, final String... settings) throws IOException {
        final List<String> prefix = List.of(
                "unshare",
                "-rm",
                "sh",
                "-c",
                "mount -t tmpfs -o size=" + megabytes + "m tmpfs \"$0\" && exec \"$@\"",
                mountPoint.toString());
        return start(prefix, mountPoint.resolve("logs"), port, settings);
    }

    private static BrokerProcess start(
            final List<String> prefix, final Path logDir, final int port, final String... settings) throws IOException {
        final List<String> command = new ArrayList<>(prefix);
        command.addAll(List.of(
                ProcessHandle.current().info().command().orElseThrow(),
                "--enable-native-access=ALL-UNNAMED",
                "-cp",
                System.getProperty("java.class.path"),
                BrokerMain.class.getName(),
                "listeners=PLAINTEXT://127.0.0.1:" + port,
                "log.dirs=" + logDir));
        command.addAll(List.of(settings));
        final Process process =
                new ProcessBuilder(command).redirectErrorStream(true).start();
        final BufferedReader output =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        final CompletableFuture<Void> listening = new CompletableFuture<>();
        final StringBuilder seen = new StringBuilder();
        final Thread reader = new Thread(() -> {
            try {
                String line;
                while ((line = output.readLine()) != null) {
                    synchronized (seen) {
                        seen.append(line).append('\n');
                    }
                    if (line.startsWith(BrokerMain.LISTENING)) {
                        listening.complete(null);
                    }
                }
            } catch (final IOException closed) {
                // The process died; the waiting side reports it.
            }
            listening.completeExceptionally(new IllegalStateException("broker exited before listening"));
        });
        reader.setDaemon(true);
        reader.start();
        try {
            listening.get(60, TimeUnit.SECONDS);
        } catch (final Exception e) {
            process.destroyForcibly();
            synchronized (seen) {
                throw new IllegalStateException("broker did not start: " + e + "\n" + seen, e);
            }
        }
        return new BrokerProcess(process);
    }

    /** SIGKILL: no shutdown hook runs, nothing is flushed by the broker. */
    public void kill9() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** {@code kill -STOP} or {@code kill -CONT}: pauses or resumes the broker, its connections left open. */
    public void signal(final String signal) throws IOException, InterruptedException {
        final Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                .inheritIO()
                .start();
        if (kill.waitFor() != 0) {
            throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
        }
    }

    /** SIGTERM: the broker shuts down cleanly. */
    int terminate() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("broker ignored SIGTERM for 30 s");
        }
        return process.exitValue();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill9();
        }
    }
}
