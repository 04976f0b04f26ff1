package io.isthmus.benchmarks.harness;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.ObjLongConsumer;

/**
 * A JVM child process running one main class of this module's class path (or another one's) with the harness's own
 * {@code java}. Its
 * output goes to a log file; a reader thread hands every line, with the child's pid, to a listener first (the harness
 * samples broker and client CPU on a client's phase markers there) and completes the futures of {@link #awaitLine}.
 */
public final class ChildJvm implements AutoCloseable {
    private final String name;
    private final Process process;
    private final Path logFile;
    private final List<LineWait> waits = new ArrayList<>();
    private final CompletableFuture<Void> outputClosed = new CompletableFuture<>();

    private ChildJvm(final String name, final Process process, final Path logFile) {
        this.name = name;
        this.process = process;
        this.logFile = logFile;
    }

    /** Starts {@code mainClass} with the given JVM options and arguments; every line goes to {@code logFile}. */
    public static ChildJvm start(
            final String name,
            final List<String> jvmOptions,
            final String mainClass,
            final List<String> args,
            final Path logFile,
            final ObjLongConsumer<String> listener)
            throws IOException {
        return start(name, System.getProperty("java.class.path"), jvmOptions, mainClass, args, logFile, listener);
    }

    /** As {@link #start(String, List, String, List, Path, ObjLongConsumer)}, on another class path. */
    public static ChildJvm start(
            final String name,
            final String classPath,
            final List<String> jvmOptions,
            final String mainClass,
            final List<String> args,
            final Path logFile,
            final ObjLongConsumer<String> listener)
            throws IOException {
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElseThrow());
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(classPath);
        command.add(mainClass);
        command.addAll(args);
        Files.createDirectories(logFile.getParent());
        final Process process =
                new ProcessBuilder(command).redirectErrorStream(true).start();
        final ChildJvm child = new ChildJvm(name, process, logFile);
        final Thread reader = new Thread(() -> child.pump(listener), "output-" + name);
        reader.setDaemon(true);
        reader.start();
        return child;
    }

    private void pump(final ObjLongConsumer<String> listener) {
        try (BufferedReader output =
                        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                BufferedWriter log = Files.newBufferedWriter(logFile, StandardCharsets.UTF_8)) {
            String line;
            while ((line = output.readLine()) != null) {
                listener.accept(line, process.pid());
                log.write(line);
                log.newLine();
                synchronized (waits) {
                    for (final LineWait wait : waits) {
                        if (!wait.future.isDone() && line.startsWith(wait.prefix)) {
                            wait.future.complete(line);
                        }
                    }
                }
            }
        } catch (final IOException closed) {
            // The child's output ended with the child; waiters are failed below.
        } finally {
            synchronized (waits) {
                for (final LineWait wait : waits) {
                    wait.future.completeExceptionally(
                            new IllegalStateException(name + " ended before printing '" + wait.prefix + "'"));
                }
            }
            outputClosed.complete(null);
        }
    }

    /** Registers interest in the first line starting with {@code prefix} from now on (lines already read are gone). */
    public CompletableFuture<String> expectLine(final String prefix) {
        final LineWait wait = new LineWait(prefix, new CompletableFuture<>());
        synchronized (waits) {
            if (outputClosed.isDone()) {
                wait.future.completeExceptionally(new IllegalStateException(name + " has ended"));
            }
            waits.add(wait);
        }
        return wait.future;
    }

    /** Waits for a line registered with {@link #expectLine}; on timeout or exit throws with the log's tail. */
    public String awaitLine(final CompletableFuture<String> line, final Duration timeout) throws IOException {
        try {
            return line.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(name + ": interrupted", e);
        } catch (final ExecutionException | TimeoutException e) {
            throw new IOException(
                    name + ": " + e.getMessage() + " within " + timeout + "; log " + logFile + ":\n" + tail(), e);
        }
    }

    public long pid() {
        return process.pid();
    }

    public Path logFile() {
        return logFile;
    }

    /** User plus system CPU time of the child so far, from /proc through {@link ProcessHandle.Info}. */
    public Duration cpuTime() {
        return ProcessCpu.of(process.pid());
    }

    /** Waits for a normal exit; a child still running after {@code timeout} is killed and reported. */
    public int waitForExit(final Duration timeout) throws IOException, InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new IOException(name + " still running after " + timeout + "; log " + logFile + ":\n" + tail());
        }
        awaitOutputEnd();
        return process.exitValue();
    }

    /**
     * SIGTERM without waiting, so that the brokers of a cluster stop together: stopped one by one, the last ones would
     * each wait out a quorum that has already gone. {@link #close} then waits.
     */
    public void terminate() {
        process.destroy();
    }

    /** SIGTERM, so the child's shutdown hooks run, then SIGKILL if it does not end within 30 s. */
    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(30, TimeUnit.SECONDS);
            }
        }
        awaitOutputEnd();
    }

    private void awaitOutputEnd() throws InterruptedException {
        try {
            outputClosed.get(10, TimeUnit.SECONDS);
        } catch (final ExecutionException | TimeoutException ignored) {
            // The log file then lacks the very last lines; nothing else depends on it.
        }
    }

    /** The last lines of the child's log, for error messages. */
    public String tail() {
        try {
            final List<String> lines = Files.readAllLines(logFile);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (final IOException e) {
            return "(log unreadable: " + e.getMessage() + ")";
        }
    }

    private record LineWait(String prefix, CompletableFuture<String> future) {}
}
