package io.isthmus.cli;

import io.isthmus.broker.BrokerMain;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
import java.util.function.IntFunction;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * A cluster of isthmus brokers on this host, each its own process with its own directory, listener port and metadata
 * quorum port. Brokers 1 to {@code voters} are also voters of the metadata quorum ({@code
 * process.roles=broker,controller}), the rest broker-only nodes that follow them ({@code process.roles=broker}).
 * {@code ./isthmus cluster} runs one for trying a cluster out; the end-to-end tests kill, pause and restart its brokers.
 *
 * <p>Each broker's output goes to {@code broker-N.log} in the cluster's directory; a restarted broker appends to it.
 * The ports are chosen once and kept in {@code cluster.properties} there, since the metadata quorum remembers its
 * voters' addresses: a cluster started again on the same directory comes back on the same ports. They are picked below
 * the kernel's ephemeral range, so no outgoing connection takes one while its broker is down. Closing terminates every
 * broker still running (SIGTERM: each shuts down under control), and so does this JVM's exit.
 */
public final class LocalCluster implements AutoCloseable {
    /**
     * The {@code -XX} and {@code -Xshare} options of this JVM, which its brokers run with too: started where this one
     * was tuned to start fast (C1 only and the serial collector in the Soft-RoCE guest, whose CPUs are emulated), they
     * start as fast.
     */
    private static final List<String> INHERITED_JVM_OPTIONS =
            ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                    .filter(option -> option.startsWith("-XX:") || option.startsWith("-Xshare"))
                    .toList();

    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    private static final String PLAN_FILE = "cluster.properties";
    /** Ports are drawn from here: below Linux's default ephemeral range (32768-60999). */
    private static final int LOWEST_PORT = 20_000;

    private static final int PORT_SPAN = 12_000;

    private final Path directory;
    private Duration startTimeout = START_TIMEOUT;
    private IntFunction<List<String>> launchPrefix = id -> List.of();
    private List<String> jvmOptions = List.of();
    private final Map<Integer, Integer> listenerPorts;
    private final String voters;
    private final int voterCount;
    private final Map<String, String> settings;
    private final Map<Integer, Process> running = new TreeMap<>();
    private final Thread exitHook = new Thread(this::destroyAll, "isthmus-local-cluster-exit");

    private LocalCluster(
            final Path directory,
            final Map<Integer, Integer> listenerPorts,
            final String voters,
            final int voterCount,
            final Map<String, String> settings) {
        this.directory = directory;
        this.listenerPorts = listenerPorts;
        this.voters = voters;
        this.voterCount = voterCount;
        this.settings = settings;
        Runtime.getRuntime().addShutdownHook(exitHook);
    }

    /**
     * Plans a cluster of {@code brokers} brokers, ids 1 to {@code brokers}, in {@code directory}: on the ports a
     * cluster there had before, or else on free loopback ports, written down for the next time; starts nothing.
     *
     * @param settings Kafka-style settings every broker gets on top of the cluster's own
     * @throws IllegalArgumentException if the directory holds a cluster of another size
     */
    public static LocalCluster plan(final int brokers, final Path directory, final Map<String, String> settings)
            throws IOException {
        return plan(brokers, brokers, directory, settings);
    }

    /**
     * As {@link #plan(int, Path, Map)}, with only brokers 1 to {@code voters} voting in the metadata quorum and the
     * others broker-only nodes.
     *
     * @throws IllegalArgumentException if {@code voters} is not between 1 and {@code brokers}, or the directory holds
     *     a cluster of another size or another quorum
     */
    public static LocalCluster plan(
            final int brokers, final int voters, final Path directory, final Map<String, String> settings)
            throws IOException {
        if (brokers < 1) {
            throw new IllegalArgumentException("a cluster needs at least one broker, got " + brokers);
        }
        if (voters < 1 || voters > brokers) {
            throw new IllegalArgumentException(
                    "a cluster of " + brokers + " brokers has 1 to " + brokers + " voters, not " + voters);
        }
        Files.createDirectories(directory);
        final Path planFile = directory.resolve(PLAN_FILE);
        final Properties plan = new Properties();
        if (Files.exists(planFile)) {
            try (var in = Files.newBufferedReader(planFile)) {
                plan.load(in);
            }
            if (Integer.parseInt(plan.getProperty("brokers", "0")) != brokers) {
                throw new IllegalArgumentException(
                        directory + " holds a cluster of " + plan.getProperty("brokers") + " brokers, not " + brokers);
            }
            // Written by this class before it knew broker-only nodes: every broker a voter.
            final int planned = Integer.parseInt(plan.getProperty("voters", Integer.toString(brokers)));
            if (planned != voters) {
                throw new IllegalArgumentException(
                        directory + " holds a cluster with " + planned + " voters, not " + voters);
            }
        } else {
            final List<Integer> ports = freePorts(2 * brokers);
            plan.setProperty("brokers", Integer.toString(brokers));
            plan.setProperty("voters", Integer.toString(voters));
            for (int id = 1; id <= brokers; id++) {
                plan.setProperty("broker." + id + ".port", Integer.toString(ports.get(2 * (id - 1))));
                plan.setProperty("broker." + id + ".quorum.port", Integer.toString(ports.get(2 * (id - 1) + 1)));
            }
            try (var out = Files.newBufferedWriter(planFile)) {
                plan.store(out, "isthmus local cluster: the ports of its brokers, kept for a restart");
            }
        }
        final Map<Integer, Integer> listenerPorts = new LinkedHashMap<>();
        final List<String> quorum = new ArrayList<>();
        for (int id = 1; id <= brokers; id++) {
            listenerPorts.put(id, Integer.parseInt(plan.getProperty("broker." + id + ".port")));
            if (id <= voters) {
                quorum.add(id + "@127.0.0.1:" + plan.getProperty("broker." + id + ".quorum.port"));
            }
        }
        return new LocalCluster(directory, listenerPorts, String.join(",", quorum), voters, Map.copyOf(settings));
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
     * How long {@link #start} waits for a broker to listen (90 s unless set): longer where JVMs start slowly, under
     * emulation.
     */
    public synchronized LocalCluster startTimeout(final Duration timeout) {
        this.startTimeout = timeout;
        return this;
    }

    /**
     * Starts broker {@code id}'s JVM under {@code prefix.apply(id)} (a command such as {@code taskset -c 1}) and with
     * {@code options} besides the inherited ones (a heap size, say): for a machine where brokers must be placed or
     * kept small.
     */
    public synchronized LocalCluster brokerJvm(final IntFunction<List<String>> prefix, final List<String> options) {
        this.launchPrefix = prefix;
        this.jvmOptions = List.copyOf(options);
        return this;
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
        final List<String> command = new ArrayList<>(launchPrefix.apply(id));
        command.add(ProcessHandle.current().info().command().orElseThrow());
        command.add("--enable-native-access=ALL-UNNAMED");
        command.addAll(INHERITED_JVM_OPTIONS);
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), BrokerMain.class.getName(), "--format"));
        final Map<String, String> broker = new TreeMap<>(settings);
        broker.put("node.id", Integer.toString(id));
        broker.put("process.roles", id <= voterCount ? "broker,controller" : "broker");
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
        final long deadline = System.nanoTime() + startTimeout.toNanos();
        final StringBuilder output = new StringBuilder();
        long position = from;
        while (output.indexOf(BrokerMain.LISTENING) < 0) {
            position = readFrom(log, position, output);
            if (output.indexOf(BrokerMain.LISTENING) >= 0) {
                break;
            }
            if (!process.isAlive() || System.nanoTime() > deadline) {
                final boolean stalled = process.isAlive();
                final String why = stalled
                        ? "not listening after " + startTimeout.toSeconds() + " s"
                        : "exited with " + process.exitValue();
                if (stalled) {
                    printThreads(process, log);
                }
                process.destroyForcibly();
                process.waitFor(30, TimeUnit.SECONDS);
                running.remove(id);
                readFrom(log, position, output);
                throw new IllegalStateException(
                        "broker " + id + " did not start (" + why + "); its output:\n" + output);
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

    /** SIGKILL: the broker stops at once, no shutdown runs. Returns once the process is gone. */
    public synchronized void kill9(final int id) throws InterruptedException {
        final Process process = running.remove(id);
        if (process != null) {
            process.destroyForcibly();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException(
                        "broker " + id + " (pid " + process.pid() + ") outlived SIGKILL by 30 s");
            }
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
        try {
            Runtime.getRuntime().removeShutdownHook(exitHook);
        } catch (final IllegalStateException exiting) {
            // the JVM is exiting: the hook is running or has run
        }
        for (final Process process : running.values()) {
            continueIfStopped(process);
            process.destroy();
        }
        for (final Process process : running.values()) {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
        running.clear();
    }

    /** On this JVM's exit: no broker outlives the process that started it. */
    private synchronized void destroyAll() {
        for (final Process process : running.values()) {
            continueIfStopped(process);
            process.destroy();
        }
    }

    /** A broker stopped with SIGSTOP would never act on SIGTERM. */
    private static void continueIfStopped(final Process process) {
        try {
            new ProcessBuilder("kill", "-CONT", Long.toString(process.pid()))
                    .start()
                    .waitFor(5, TimeUnit.SECONDS);
        } catch (final IOException e) {
            // no kill command: a stopped broker is then destroyed forcibly after the wait
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Appends the threads of a broker JVM that stalls to its log ({@code jcmd PID Thread.print}, the JDK's own tool
     * beside this JVM's {@code java}) before it is destroyed, so the failure says where it stood rather than only that
     * it did not start. {@code jcmd} returns once the dump is written, so nothing waits on a guess.
     */
    private static void printThreads(final Process process, final Path log) throws InterruptedException {
        final Path java = Path.of(ProcessHandle.current().info().command().orElseThrow());
        final Path jcmd = java.resolveSibling("jcmd");
        try {
            final Process dump = new ProcessBuilder(jcmd.toString(), Long.toString(process.pid()), "Thread.print")
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
            if (!dump.waitFor(60, TimeUnit.SECONDS)) {
                dump.destroyForcibly();
                System.err.println("no thread dump of broker pid " + process.pid() + ": jcmd took over 60 s");
            }
        } catch (final IOException e) {
            System.err.println("no thread dump of broker pid " + process.pid() + ": " + e);
        }
    }

    /** Appends what {@code log} holds from {@code position} on to {@code output}; returns the new position. */
    private static long readFrom(final Path log, final long position, final StringBuilder output) {
        try (FileChannel channel = FileChannel.open(log, StandardOpenOption.READ)) {
            final long size = channel.size();
            if (size <= position) {
                return position;
            }
            final ByteBuffer bytes = ByteBuffer.allocate((int) Math.min(size - position, 1 << 20));
            channel.read(bytes, position);
            bytes.flip();
            output.append(StandardCharsets.UTF_8.decode(bytes));
            return position + bytes.limit();
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot read broker output " + log, e);
        }
    }

    /**
     * {@code count} distinct ports that can be bound on loopback now, below the ephemeral range; each is held bound
     * until all are chosen, so no two are the same.
     */
    private static List<Integer> freePorts(final int count) throws IOException {
        final List<ServerSocket> held = new ArrayList<>();
        final List<Integer> ports = new ArrayList<>();
        final java.util.Random random = new java.util.Random();
        try {
            for (int attempt = 0; ports.size() < count; attempt++) {
                if (attempt > 10_000) {
                    throw new IOException("no " + count + " free loopback ports between " + LOWEST_PORT + " and "
                            + (LOWEST_PORT + PORT_SPAN));
                }
                final int port = LOWEST_PORT + random.nextInt(PORT_SPAN);
                if (ports.contains(port)) {
                    continue;
                }
                try {
                    held.add(new ServerSocket(port, 1, InetAddress.getLoopbackAddress()));
                    ports.add(port);
                } catch (final IOException taken) {
                    // in use: draw another
                }
            }
        } finally {
            for (final ServerSocket socket : held) {
                socket.close();
            }
        }
        return ports;
    }
}
