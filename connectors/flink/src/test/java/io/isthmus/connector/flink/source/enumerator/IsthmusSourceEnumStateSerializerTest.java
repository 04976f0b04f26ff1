package io.isthmus.connector.flink.source.enumerator;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.connector.flink.source.split.IsthmusPartitionSplit;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class IsthmusSourceEnumStateSerializerTest {
    @Test
    void shouldRoundTripAssignedPartitionsAndPendingSplits() throws IOException {
        final IsthmusSourceEnumStateSerializer serializer = new IsthmusSourceEnumStateSerializer();
        final IsthmusSourceEnumState state = new IsthmusSourceEnumState(
                Set.of(new TopicPartition("a", 0), new TopicPartition("a", 1)),
                Set.of(new IsthmusPartitionSplit(new TopicPartition("b", 3), 10, 20)),
                true);
        final IsthmusSourceEnumState back =
                serializer.deserialize(serializer.getVersion(), serializer.serialize(state));
        assertThat(back).isEqualTo(state);
    }

    /** Kafka's formula: the same owner for a partition at a given parallelism, partitions of a topic spread evenly. */
    @Test
    void shouldAssignOwnersDeterministicallyAndRoundRobinWithinATopic() {
        final Map<Integer, Integer> perReader = new HashMap<>();
        for (int p = 0; p < 12; p++) {
            final int owner = IsthmusSourceEnumerator.ownerOf(new TopicPartition("orders", p), 4);
            assertThat(owner).isEqualTo(IsthmusSourceEnumerator.ownerOf(new TopicPartition("orders", p), 4));
            assertThat(owner).isBetween(0, 3);
            perReader.merge(owner, 1, Integer::sum);
        }
        assertThat(perReader).containsOnly(Map.entry(0, 3), Map.entry(1, 3), Map.entry(2, 3), Map.entry(3, 3));
        final int start = (("orders".hashCode() * 31) & 0x7FFFFFFF) % 4;
        assertThat(IsthmusSourceEnumerator.ownerOf(new TopicPartition("orders", 0), 4))
                .isEqualTo(start);
        assertThat(IsthmusSourceEnumerator.ownerOf(new TopicPartition("orders", 1), 4))
                .isEqualTo((start + 1) % 4);
    }
}
