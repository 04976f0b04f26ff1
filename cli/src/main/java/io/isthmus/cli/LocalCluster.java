package io.isthmus.cli;

import io.isthmus.broker.BrokerMain;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * A cluster of isthmus brokers on this host, each its own process with its own directory, listener port and metadata
 * quorum port, every one broker and voter ({@code process.roles=broker,controller}). {@code ./isthmus cluster} runs
 * one for trying a cluster out; the end-to-end tests kill, pause and restart its brokers.
 *
 * <p>Each broker's output goes to {@code broker-N.log} in the cluster's directory; a restarted broker appends to it.
 * Closing terminates every broker still running (SIGTERM: each shuts down under control).
 */
public final class LocalCluster implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    private static final String LISTENING = "isthmus broker listening on";

    private final Path directory;
    private final Map<Integer, Integer> listenerPorts;
    private final String voters;
    private final Map<String, String> settings;
    private final Map<Integer, Process> running = new TreeMap<>();

    private LocalCluster(
            final Path directory,
            final Map<Integer, Integer> listenerPorts,
            final String voters,
            final Map<String, String> settings) {
        this.directory = directory;
        this.listenerPorts = listenerPorts;
        this.voters = voters;
        this.settings = settings;
    }

    /**
     * Plans a cluster of {@code brokers} brokers, ids 1 to {@code brokers}, in {@code directory}, on free loopback
     * ports; starts nothing.
     *
     * @param settings Kafka-style settings every broker gets on top of the cluster's own
     */
    public static LocalCluster plan(final int brokers, final Path directory, final Map<String, String> settings)
            throws IOException {
        if (brokers < 1) {
            throw new IllegalArgumentException("a cluster needs at least one broker, got " + brokers);
        }
        final Map<Integer, Integer> listenerPorts = new LinkedHashMap<>();
        final List<String> voters = new ArrayList<>();
        for (int id = 1; id <= brokers; id++) {
            listenerPorts.put(id, freePort());
            voters.add(id + "@127.0.0.1:" + freePort());
        }
        Files.createDirectories(directory);
        return new LocalCluster(directory, listenerPorts, String.join(",", voters), Map.copyOf(settings));
    }

    /** Starts every broker not running, then waits until each is registered and unfenced. */
    public void startAll(final Duration timeout) throws IOException, InterruptedException, TimeoutException {
        for (final int id : listenerPorts.keySet()) {
            if (!isRunning(id)) {
                start(id);
            }
        }
        awaitBrokers(listenerPorts.size(), timeout);
    }

    /**
     * Starts broker {@code id} (formatting its metadata directory the first time) and waits until it listens; it joins
     * the cluster in the background.
     */
    public synchronized void start(final int id) throws IOException, InterruptedException {
        if (isRunning(id)) {
            throw new IllegalStateException("broker " + id + " is running");
        }
        final Path log = directory.resolve("broker-" + id + ".log");
        final long from = Files.exists(log) ? Files.size(log) : 0;
        final List<String> command = new ArrayList<>(List.of(
                ProcessHandle.current().info().command().orElseThrow(),
                "--enable-native-access=ALL-UNNAMED",
                "-cp",
                System.getProperty("java.class.path"),
                BrokerMain.class.getName(),
                "--format"));
        final Map<String, String> broker = new TreeMap<>(settings);
        broker.put("node.id", Integer.toString(id));
        broker.put("process.roles", "broker,controller");
        broker.put("controller.quorum.voters", voters);
        broker.putIfAbsent("cluster.id", "isthmus-local-cluster");
        broker.put("listeners", "PLAINTEXT://127.0.0.1:" + listenerPorts.get(id));
        broker.put("log.dirs", directory.resolve("broker-" + id).toString());
        broker.forEach((key, value) -> command.add(key + "=" + value));
        final Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        running.put(id, process);
        final long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (!printedSince(log, from, LISTENING)) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                process.destroyForcibly();
                running.remove(id);
                throw new IllegalStateException("broker " + id + " did not start ("
                        + (process.isAlive()
                                ? "not listening after " + START_TIMEOUT.toSeconds() + " s"
                                : "exited with " + process.exitValue())
                        + "); its output:\n" + tail(log, from));
            }
            Thread.sleep(50);
        }
    }

    /** Waits until {@code count} brokers are registered and unfenced, as DescribeCluster answers. */
    public void awaitBrokers(final int count, final Duration timeout) throws InterruptedException, TimeoutException {
        final long deadline = System.nanoTime() + timeout.toNanos();
        final Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "5000");
        int seen = -1;
        try (Admin admin = Admin.create(p)) {
            while (System.nanoTime() < deadline) {
                try {
                    seen = admin.describeCluster()
                            .nodes()
                            .get(5, TimeUnit.SECONDS)
                            .size();
                    if (seen >= count) {
                        return;
                    }
                } catch (final ExecutionException | TimeoutException notYet) {
                    // no broker answers yet, or none has the cluster's metadata: ask again
                }
                Thread.sleep(100);
            }
        }
        throw new TimeoutException(count + " brokers not active within " + timeout.toMillis() + " ms (last seen: "
                + seen + "); see the broker-N.log files in " + directory);
    }

    /** SIGKILL: the broker stops at once, no shutdown runs. */
    public synchronized void kill9(final int id) throws InterruptedException {
        final Process process = running.remove(id);
        if (process != null) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** SIGTERM: the broker shuts down under control (its leaderships move at once) and exits. */
    public synchronized void stop(final int id) throws InterruptedException {
        final Process process = running.remove(id);
        if (process == null) {
            return;
        }
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("broker " + id + " ignored SIGTERM for 60 s");
        }
    }

    /** SIGSTOP or SIGCONT to broker {@code id}'s process. */
    public synchronized void signal(final int id, final String signal) throws IOException, InterruptedException {
        final Process process = running.get(id);
        if (process == null) {
            throw new IllegalStateException("broker " + id + " is not running");
        }
        final Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                .inheritIO()
                .start();
        if (kill.waitFor() != 0) {
            throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
        }
    }

    public synchronized boolean isRunning(final int id) {
        final Process process = running.get(id);
        return process != null && process.isAlive();
    }

    public List<Integer> brokerIds() {
        return List.copyOf(listenerPorts.keySet());
    }

    /** {@code host:port} of broker {@code id}'s listener. */
    public String address(final int id) {
        return "127.0.0.1:" + listenerPorts.get(id);
    }

    /** Every broker's listener, for {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return String.join(
                ",", listenerPorts.keySet().stream().map(this::address).toList());
    }

    public Path directory() {
        return directory;
    }

    public synchronized long pid(final int id) {
        return running.get(id).pid();
    }

    @Override
    public synchronized void close() throws InterruptedException {
        for (final Process process : running.values()) {
            process.destroy();
        }
        for (final Process process : running.values()) {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
        running.clear();
    }

    private static boolean printedSince(final Path log, final long from, final String line) {
        return tail(log, from).contains(line);
    }

    private static String tail(final Path log, final long from) {
        try {
            final byte[] all = Files.readAllBytes(log);
            final int start = (int) Math.min(from, all.length);
            return new String(all, start, all.length - start, StandardCharsets.UTF_8);
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot read broker output " + log, e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
