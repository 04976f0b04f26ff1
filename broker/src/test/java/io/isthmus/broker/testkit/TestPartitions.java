package io.isthmus.broker.testkit;

import io.isthmus.broker.log.LogManager;
import io.isthmus.broker.partition.Partition;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.topic.TopicRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

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

    /** Hosts partition 0 of a new one-partition topic {@code topic}, as the cluster's metadata would assign it. */
    public static Partition hostOnePartition(final PartitionManager partitions, final String topic) {
        partitions.host(List.of(
                new PartitionManager.HostedTopic(new TopicRegistry.TopicInfo(topic, Uuid.randomUuid(), 1), Set.of(0))));
        return partitions.partition(new TopicPartition(topic, 0)).orElseThrow();
    }

    private static LogManager logs(final Path logDir) {
        return LogManager.fromConfig(
                Map.of(LogManager.LOG_DIRS, logDir.toString(), "log.segment.bytes", Integer.toString(1024 * 1024)),
                InstantSource.system());
    }
}
