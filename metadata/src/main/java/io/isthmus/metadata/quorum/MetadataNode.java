package io.isthmus.metadata.quorum;

import io.isthmus.metadata.image.ClusterImage;
import java.io.IOException;
import java.util.OptionalInt;
import java.util.function.Consumer;

/**
 * A node's part in the cluster's metadata: the image it has, and its way to the quorum's leader. A voter
 * ({@link MetadataQuorum}, {@code process.roles=broker,controller}) holds the quorum log itself; a broker-only node
 * ({@link MetadataObserver}, {@code process.roles=broker}) follows the leader's image without a vote, so brokers can be
 * added without growing the quorum that every metadata change must reach.
 */
public interface MetadataNode extends AutoCloseable {
    /**
     * Starts this node's part: a voter if {@code settings} lists its id among the voters, an observer otherwise.
     *
     * @throws IllegalStateException if its directory is not formatted, or formatted for another cluster or node
     */
    static MetadataNode start(QuorumSettings settings) throws IOException {
        return settings.isVoter() ? MetadataQuorum.start(settings) : MetadataObserver.start(settings);
    }

    /**
     * Formats a node's metadata directory for its cluster and node (Kafka's {@code kafka-storage format}); a node
     * starts only on a formatted directory. Formatting one already formatted for the same cluster and node changes
     * nothing.
     *
     * @throws IllegalStateException if the directory was formatted for another cluster or node
     */
    static void format(QuorumSettings settings) throws IOException {
        NodeDirectory.format(settings);
    }

    /**
     * Whether a node has started on this directory before, as opposed to one formatted and never started.
     *
     * @throws IllegalStateException if the directory is not formatted, or formatted for another cluster or node
     */
    static boolean startedBefore(QuorumSettings settings) throws IOException {
        return NodeDirectory.check(settings);
    }

    int nodeId();

    /** The newest metadata this node has. */
    ClusterImage image();

    /** Calls {@code listener} with the current image now and with each newer image after. */
    void addListener(Consumer<ClusterImage> listener);

    /** The voter this node believes leads the quorum, if it knows of one: Kafka's active controller. */
    OptionalInt leaderId();

    /** The way to the quorum's leader for this node's commands, heartbeats included. */
    QuorumClient controller();

    @Override
    void close() throws IOException;
}
