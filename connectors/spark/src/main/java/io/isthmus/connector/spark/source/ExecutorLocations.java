package io.isthmus.connector.spark.source;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.spark.SparkEnv;
import org.apache.spark.storage.BlockManager;
import org.apache.spark.storage.BlockManagerId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Where a task of a partition should run so that it finds the consumer an earlier task of that partition left in its
 * executor's {@link ConsumerPool}, as Spark's Kafka source steers its tasks: the executors the driver knows, sorted so
 * every trigger sees them in the same order, and each log partition's ranges preferring the executor its hash picks.
 * A partition split across several tasks ({@code minPartitions}) prefers none: its ranges are read side by side by
 * different consumers anyway. Spark treats a preference as a hint (an executor that is gone, or busy past the locality
 * wait, is passed over).
 */
final class ExecutorLocations {
    /** Spark's tag for an executor location ({@code ExecutorCacheTaskLocation}): {@code executor_<host>_<id>}. */
    private static final String EXECUTOR_TAG = "executor_";

    private static final Logger LOG = LoggerFactory.getLogger(ExecutorLocations.class);

    private ExecutorLocations() {}

    /**
     * The executors of the running application as task locations, sorted by host and id; empty where there are none
     * besides the driver (local mode) or no Spark environment.
     */
    static List<String> sorted() {
        final SparkEnv env = SparkEnv.get();
        if (env == null) {
            return List.of();
        }
        final BlockManager blockManager = env.blockManager();
        final List<BlockManagerId> peers;
        try {
            peers = new ArrayList<>(
                    CollectionConverters.asJava(blockManager.master().getPeers(blockManager.blockManagerId())));
        } catch (final RuntimeException e) {
            // A hint is not worth failing the trigger for (the application stopping, say): no preference this time.
            LOG.warn("cannot list the executors for task locality; tasks go anywhere this trigger", e);
            return List.of();
        }
        peers.removeIf(BlockManagerId::isDriver);
        peers.sort(Comparator.comparing(BlockManagerId::host).thenComparing(BlockManagerId::executorId));
        final List<String> locations = new ArrayList<>(peers.size());
        for (final BlockManagerId peer : peers) {
            locations.add(EXECUTOR_TAG + peer.host() + '_' + peer.executorId());
        }
        return locations;
    }

    /**
     * The preferred location of each range, in order: the executor {@code partition.hashCode()} picks among {@code
     * executors}, or none for a partition with more than one range here or where there are no executors.
     */
    static String[][] preferred(final List<OffsetRange> ranges, final List<String> executors) {
        final Map<TopicPartition, Integer> rangesPerPartition = new HashMap<>();
        for (final OffsetRange range : ranges) {
            rangesPerPartition.merge(range.partition(), 1, Integer::sum);
        }
        final String[][] locations = new String[ranges.size()][];
        for (int i = 0; i < locations.length; i++) {
            final TopicPartition partition = ranges.get(i).partition();
            locations[i] = executors.isEmpty() || rangesPerPartition.get(partition) > 1
                    ? new String[0]
                    : new String[] {executors.get(Math.floorMod(partition.hashCode(), executors.size()))};
        }
        return locations;
    }
}
