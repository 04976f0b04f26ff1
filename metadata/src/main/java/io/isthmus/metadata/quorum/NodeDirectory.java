package io.isthmus.metadata.quorum;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * A node's metadata directory and the file that says it was formatted for this cluster and node, as Kafka's
 * {@code kafka-storage format} writes {@code meta.properties}.
 *
 * <p>A node only starts on a formatted directory. For a voter this keeps the quorum safe: without the rule, a voter
 * whose disk was lost (or whose path was mistyped) would come back with an empty log and no memory of the votes it
 * cast, and could vote twice in one term or help elect a leader that lacks committed entries. Formatting is an operator's (or a launcher's) deliberate step;
 * formatting an already formatted directory for the same cluster and node changes nothing. A broker-only node holds
 * no quorum log, but is held to the same rule, so that one started with another cluster's settings is refused before
 * it follows that cluster's metadata (which would delete the partitions it holds).
 */
final class NodeDirectory {
    static final String FILE_NAME = "quorum.properties";
    private static final String CLUSTER_ID = "cluster.id";
    private static final String NODE_ID = "node.id";
    private static final String STARTED = "started";
    /** The role of the node's last start; absent in directories of voters written before broker-only nodes existed. */
    private static final String ROLE = "role";

    private static final String VOTER = "voter";
    private static final String OBSERVER = "observer";

    private NodeDirectory() {}

    /** Formats {@code settings.directory()} for its cluster and node, if it is not already. */
    static void format(QuorumSettings settings) throws IOException {
        Path file = settings.directory().resolve(FILE_NAME);
        if (Files.exists(file)) {
            check(settings);
            return;
        }
        Files.createDirectories(settings.directory());
        Properties properties = new Properties();
        properties.setProperty(CLUSTER_ID, settings.clusterId());
        properties.setProperty(NODE_ID, Integer.toString(settings.nodeId()));
        write(settings.directory(), properties);
    }

    /**
     * Checks that {@code settings.directory()} was formatted for this cluster and node, and that the quorum log is
     * there if this voter ever started.
     *
     * @return whether the voter has started on this directory before (its quorum log must then exist)
     * @throws IllegalStateException naming the directory, if it was not formatted, was formatted for another cluster
     *     or node, or has lost the quorum log of a voter that started before
     */
    static boolean check(QuorumSettings settings) throws IOException {
        Properties properties = read(settings);
        String clusterId = properties.getProperty(CLUSTER_ID);
        String nodeId = properties.getProperty(NODE_ID);
        if (!settings.clusterId().equals(clusterId)
                || !Integer.toString(settings.nodeId()).equals(nodeId)) {
            throw new IllegalStateException("metadata directory " + settings.directory() + " was formatted for "
                    + CLUSTER_ID + "=" + clusterId + " " + NODE_ID + "=" + nodeId + ", not for " + CLUSTER_ID + "="
                    + settings.clusterId() + " " + NODE_ID + "=" + settings.nodeId());
        }
        return Boolean.parseBoolean(properties.getProperty(STARTED));
    }

    /**
     * Records that the node has started here, and in which role: from now on a missing quorum log of a voter is a lost
     * one. A node that followed as an observer and is then made a voter starts its quorum log afresh.
     */
    static void markStarted(QuorumSettings settings) throws IOException {
        Properties properties = read(settings);
        String role = settings.isVoter() ? VOTER : OBSERVER;
        if (!Boolean.parseBoolean(properties.getProperty(STARTED)) || !role.equals(properties.getProperty(ROLE))) {
            properties.setProperty(STARTED, "true");
            properties.setProperty(ROLE, role);
            write(settings.directory(), properties);
        }
    }

    /** Whether the node last started here as a voter, so that its quorum log must exist (see {@link #check}). */
    static boolean startedAsVoter(QuorumSettings settings) throws IOException {
        Properties properties = read(settings);
        return Boolean.parseBoolean(properties.getProperty(STARTED)) && !OBSERVER.equals(properties.getProperty(ROLE));
    }

    private static Properties read(QuorumSettings settings) throws IOException {
        Path file = settings.directory().resolve(FILE_NAME);
        if (!Files.exists(file)) {
            throw new IllegalStateException("metadata directory " + settings.directory() + " is not formatted (no "
                    + FILE_NAME + "): format it first; a node never starts on an empty directory by itself, since a"
                    + " voter that lost its disk must not rejoin the quorum as if new");
        }
        Properties properties = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(in);
        }
        return properties;
    }

    private static void write(Path directory, Properties properties) throws IOException {
        DurableFile.replace(directory.resolve(FILE_NAME), out -> {
            Writer writer = new OutputStreamWriter(out, StandardCharsets.UTF_8);
            properties.store(writer, "isthmus metadata directory");
            writer.flush();
        });
    }
}
