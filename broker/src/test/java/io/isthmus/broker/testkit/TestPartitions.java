package io.isthmus.broker.testkit;

import io.isthmus.broker.log.LogManager;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.topic.TopicRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Map;

/** Partitions over a test's directory, wired as the broker wires them (metadata in the first log dir). */
public final class TestPartitions {
    private TestPartitions() {}

    public static PartitionManager start(final Path logDir) throws IOException {
        return start(logDir, Integer.MAX_VALUE);
    }

    /** Partitions with {@code max.broker.partitions} set to {@code maxPartitions}. */
    public static PartitionManager start(final Path logDir, final int maxPartitions) throws IOException {
        return PartitionManager.start(logs(logDir), TopicRegistry.open(logDir), maxPartitions);
    }

    /** The partitions of a broker of a cluster, which holds only what the cluster's metadata assigns it. */
    public static PartitionManager startForCluster(final Path logDir) throws IOException {
        return PartitionManager.startForCluster(logs(logDir), TopicRegistry.open(logDir));
    }

    private static LogManager logs(final Path logDir) {
        return LogManager.fromConfig(
                Map.of(LogManager.LOG_DIRS, logDir.toString(), "log.segment.bytes", Integer.toString(1024 * 1024)),
                InstantSource.system());
    }
}
