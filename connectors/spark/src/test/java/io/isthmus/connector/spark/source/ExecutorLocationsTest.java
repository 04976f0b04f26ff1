package io.isthmus.connector.spark.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.connector.spark.KafkaRecordSchema;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.junit.jupiter.api.Test;

/**
 * Tasks of a partition prefer the executor whose cached consumer read it before, as in Spark's Kafka source: the same
 * executor for the same partition on every trigger, none for a partition split across tasks or without executors.
 */
class ExecutorLocationsTest {
    private static final List<String> EXECUTORS =
            List.of("executor_host-a_1", "executor_host-a_2", "executor_host-b_3");

    @Test
    void shouldPreferTheSameExecutorForAPartitionOnEveryTriggerAndSpreadPartitions() {
        final List<OffsetRange> first = List.of(
                new OffsetRange(new TopicPartition("t", 0), 0, 10),
                new OffsetRange(new TopicPartition("t", 1), 0, 10),
                new OffsetRange(new TopicPartition("t", 2), 0, 10));
        final List<OffsetRange> next = List.of(
                new OffsetRange(new TopicPartition("t", 2), 10, 20),
                new OffsetRange(new TopicPartition("t", 0), 10, 20));
        final String[][] firstLocations = ExecutorLocations.preferred(first, EXECUTORS);
        final String[][] nextLocations = ExecutorLocations.preferred(next, EXECUTORS);

        for (int i = 0; i < first.size(); i++) {
            final TopicPartition partition = first.get(i).partition();
            assertThat(firstLocations[i])
                    .containsExactly(EXECUTORS.get(Math.floorMod(partition.hashCode(), EXECUTORS.size())));
        }
        assertThat(nextLocations[0]).as("t-2 again").isEqualTo(firstLocations[2]);
        assertThat(nextLocations[1]).as("t-0 again").isEqualTo(firstLocations[0]);
        assertThat(List.of(firstLocations[0][0], firstLocations[1][0], firstLocations[2][0]))
                .as("three partitions over three executors")
                .doesNotHaveDuplicates();
    }

    @Test
    void shouldPreferNoneForASplitPartitionOrWithoutExecutors() {
        final List<OffsetRange> split = List.of(
                new OffsetRange(new TopicPartition("t", 0), 0, 5),
                new OffsetRange(new TopicPartition("t", 0), 5, 10),
                new OffsetRange(new TopicPartition("t", 1), 0, 10));
        final String[][] locations = ExecutorLocations.preferred(split, EXECUTORS);
        assertThat(locations[0]).isEmpty();
        assertThat(locations[1]).isEmpty();
        assertThat(locations[2]).hasSize(1);
        assertThat(ExecutorLocations.preferred(split, List.of())[2]).isEmpty();
    }

    @Test
    void shouldHandTheLocationToSparkThroughTheInputPartition() {
        final ReadOptions options = ReadOptions.parse(
                new CaseInsensitiveStringMap(Map.of("isthmus.bootstrap.servers", "127.0.0.1:9092", "subscribe", "t")));
        final InputPartition[] partitions = InputPartitions.of(
                List.of(new OffsetRange(new TopicPartition("t", 1), 0, 10)),
                options,
                KafkaRecordSchema.schema(false),
                EXECUTORS);
        assertThat(partitions[0].preferredLocations())
                .containsExactly(EXECUTORS.get(Math.floorMod(new TopicPartition("t", 1).hashCode(), 3)));
        // No Spark environment here (no executors known): no preference, as in local mode.
        assertThat(ExecutorLocations.sorted()).isEmpty();
    }
}
