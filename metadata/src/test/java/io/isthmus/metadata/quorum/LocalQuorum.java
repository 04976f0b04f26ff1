package io.isthmus.metadata.quorum;

import io.isthmus.metadata.image.ClusterImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/** Three (or more) voters of one quorum in this JVM, each on its own loopback port and directory. */
public final class LocalQuorum implements AutoCloseable {
    /** Every port this JVM handed out: never again, bound yet or not. */
    private static final java.util.Set<Integer> HANDED_OUT = java.util.concurrent.ConcurrentHashMap.newKeySet();

    public static final String CLUSTER_ID = "local-quorum-cluster";

    private final List<QuorumSettings> settings = new ArrayList<>();
    private final MetadataQuorum[] running;

    public LocalQuorum(int voters, Path root, Duration electionTimeout, Duration sessionTimeout, long snapshotEvery)
            throws IOException {
        this(voters, root, electionTimeout, sessionTimeout, snapshotEvery, QuorumSettings.DEFAULT_LOG_SEGMENT_BYTES);
    }

    /** Voters with formatted directories, not started. */
    public LocalQuorum(
            int voters,
            Path root,
            Duration electionTimeout,
            Duration sessionTimeout,
            long snapshotEvery,
            long logSegmentBytes)
            throws IOException {
        List<QuorumVoter> list = new ArrayList<>();
        for (int id = 1; id <= voters; id++) {
            list.add(new QuorumVoter(id, "127.0.0.1", freePort()));
        }
        for (QuorumVoter v : list) {
            settings.add(new QuorumSettings(
                    v.id(),
                    CLUSTER_ID,
                    list,
                    root.resolve("voter-" + v.id()),
                    electionTimeout,
                    sessionTimeout,
                    snapshotEvery,
                    logSegmentBytes));
            MetadataNode.format(settings.getLast());
        }
        running = new MetadataQuorum[voters + 1];
    }

    /**
     * A loopback port nothing listens on now (a voter binds it moments later, and again after each restart), below
     * Linux's ephemeral range (32768-60999): a port from that range can meanwhile become the local port of any outgoing
     * connection, and the restarted voter would fail to bind it.
     */
    static int freePort() throws IOException {
        for (int attempt = 0; attempt < 1_000; attempt++) {
            final int port =
                    20_000 + java.util.concurrent.ThreadLocalRandom.current().nextInt(12_000);
            if (!HANDED_OUT.add(port)) {
                continue; // given to an earlier caller, which may not have bound it yet
            }
            try (ServerSocket probe = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                return port;
            } catch (final IOException taken) {
                // in use: draw another
            }
        }
        throw new IOException("no free loopback port between 20000 and 32000");
    }

    public LocalQuorum startAll() throws IOException {
        for (QuorumSettings s : settings) {
            start(s.nodeId());
        }
        return this;
    }

    MetadataQuorum start(int id) throws IOException {
        running[id] = MetadataQuorum.start(settings.get(id - 1));
        return running[id];
    }

    void stop(int id) throws IOException {
        running[id].close();
        running[id] = null;
    }

    QuorumSettings settingsOf(int id) {
        return settings.get(id - 1);
    }

    public MetadataQuorum voter(int id) {
        return Objects.requireNonNull(running[id], "voter " + id + " is stopped");
    }

    List<MetadataQuorum> runningVoters() {
        List<MetadataQuorum> list = new ArrayList<>();
        for (MetadataQuorum q : running) {
            if (q != null) {
                list.add(q);
            }
        }
        return list;
    }

    /** The running voter every running voter agrees leads. */
    public MetadataQuorum awaitLeader(Duration timeout) {
        await(timeout, () -> agreedLeader().isPresent(), "a leader every running voter agrees on");
        return agreedLeader().orElseThrow();
    }

    private Optional<MetadataQuorum> agreedLeader() {
        List<MetadataQuorum> voters = runningVoters();
        for (MetadataQuorum q : voters) {
            if (q.isLeader() && voters.stream().allMatch(o -> o.leaderId().orElse(-1) == q.nodeId())) {
                return Optional.of(q);
            }
        }
        return Optional.empty();
    }

    /** Waits until every running voter holds an image equal to {@code expected}'s. */
    void awaitConverged(MetadataQuorum expected, Duration timeout) {
        await(
                timeout,
                () -> {
                    ClusterImage image = expected.image();
                    return runningVoters().stream().allMatch(q -> q.image().equals(image));
                },
                "every voter's image equal to voter " + expected.nodeId() + "'s");
    }

    public static void await(Duration timeout, BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("waited " + timeout.toMillis() + " ms for " + what);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what, e);
            }
        }
    }

    @Override
    public void close() {
        for (int id = running.length - 1; id > 0; id--) {
            if (running[id] != null) {
                try {
                    stop(id);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
    }
}
