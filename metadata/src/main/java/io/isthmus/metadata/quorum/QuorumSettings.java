package io.isthmus.metadata.quorum;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What one node needs to take its part in the metadata quorum, as a voter or as a broker-only observer. The names in the comments are the Kafka settings each comes
 * from.
 *
 * @param nodeId this node's id ({@code node.id}): a voter if it is one of {@code voters}, a broker-only observer
 *     otherwise
 * @param clusterId the cluster's id ({@code cluster.id}); voters of different clusters never form one quorum, and a
 *     broker of another cluster is refused with {@code INCONSISTENT_CLUSTER_ID}
 * @param voters every voter ({@code controller.quorum.voters})
 * @param directory where this node keeps its metadata ({@code metadata.log.dir}): a voter's quorum log and
 *     snapshots, or the file that says an observer was formatted for this cluster
 * @param electionTimeout how long a follower waits for its leader before it stands for election
 *     ({@code controller.quorum.election.timeout.ms}; an election waits a random time between this and twice it)
 * @param brokerSessionTimeout how long the quorum leader waits for a broker's heartbeat before it fences the broker
 *     ({@code broker.session.timeout.ms})
 * @param snapshotEveryEntries how many log entries between automatic snapshots
 * @param logSegmentBytes the size of one quorum log segment; a voter purges the segments a snapshot covers, and a
 *     voter that falls behind the oldest kept segment catches up from the leader's snapshot
 */
public record QuorumSettings(
        int nodeId,
        String clusterId,
        List<QuorumVoter> voters,
        Path directory,
        Duration electionTimeout,
        Duration brokerSessionTimeout,
        long snapshotEveryEntries,
        long logSegmentBytes) {
    /** Kafka's defaults for the two timeouts. */
    public static final Duration DEFAULT_ELECTION_TIMEOUT = Duration.ofSeconds(1);

    public static final Duration DEFAULT_BROKER_SESSION_TIMEOUT = Duration.ofSeconds(9);
    public static final long DEFAULT_SNAPSHOT_EVERY_ENTRIES = 10_000;
    public static final long DEFAULT_LOG_SEGMENT_BYTES = 8L << 20;
    private static final Duration MIN_REQUEST_TIMEOUT = Duration.ofSeconds(3);

    public QuorumSettings {
        Objects.requireNonNull(clusterId, "clusterId");
        Objects.requireNonNull(directory, "directory");
        voters = List.copyOf(voters);
        if (voters.isEmpty()) {
            throw new IllegalArgumentException(QuorumVoter.SETTING + " names no voter");
        }
        if (electionTimeout.isNegative() || electionTimeout.isZero()) {
            throw new IllegalArgumentException("controller.quorum.election.timeout.ms must be positive");
        }
        if (brokerSessionTimeout.compareTo(electionTimeout) <= 0) {
            throw new IllegalArgumentException("broker.session.timeout.ms (" + brokerSessionTimeout.toMillis()
                    + ") must exceed controller.quorum.election.timeout.ms (" + electionTimeout.toMillis()
                    + "), or every quorum election would fence brokers that did nothing wrong");
        }
        if (logSegmentBytes < 1024) {
            throw new IllegalArgumentException("logSegmentBytes must be at least 1024, got " + logSegmentBytes);
        }
        if (snapshotEveryEntries < 1) {
            throw new IllegalArgumentException("snapshotEveryEntries must be positive, got " + snapshotEveryEntries);
        }
    }

    /** Settings with Kafka's default timeouts. */
    public static QuorumSettings of(int nodeId, String clusterId, List<QuorumVoter> voters, Path directory) {
        return new QuorumSettings(
                nodeId,
                clusterId,
                voters,
                directory,
                DEFAULT_ELECTION_TIMEOUT,
                DEFAULT_BROKER_SESSION_TIMEOUT,
                DEFAULT_SNAPSHOT_EVERY_ENTRIES,
                DEFAULT_LOG_SEGMENT_BYTES);
    }

    /**
     * How long one request to a voter may take, a command's or a voter's own: twice the election timeout, and never
     * less than Ratis's default of 3 s. A quorum configured for a slow machine (a longer election timeout) is given the
     * time it needs for its requests too; at a fixed 3 s, commands to a single voter on an emulated, loaded CPU timed
     * out on every try while the voter was still writing them.
     */
    public Duration requestTimeout() {
        Duration twice = electionTimeout.multipliedBy(2);
        return twice.compareTo(MIN_REQUEST_TIMEOUT) < 0 ? MIN_REQUEST_TIMEOUT : twice;
    }

    /** Whether this node is one of the voters. */
    public boolean isVoter() {
        return voters.stream().anyMatch(v -> v.id() == nodeId);
    }

    /** This voter's own entry among the voters. */
    public QuorumVoter self() {
        return voters.stream().filter(v -> v.id() == nodeId).findFirst().orElseThrow();
    }
}
