package io.isthmus.connector.flink.source.split;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class IsthmusPartitionSplitSerializerTest {
    private final IsthmusPartitionSplitSerializer serializer = new IsthmusPartitionSplitSerializer();

    @Test
    void shouldRoundTripSplitsWithAndWithoutAStop() throws IOException {
        final IsthmusPartitionSplit open = new IsthmusPartitionSplit(new TopicPartition("t\u00e9", 7), 42);
        final IsthmusPartitionSplit stopped = new IsthmusPartitionSplit(new TopicPartition("t", 0), 0, 100);
        for (final IsthmusPartitionSplit split : new IsthmusPartitionSplit[] {open, stopped}) {
            final IsthmusPartitionSplit back =
                    serializer.deserialize(serializer.getVersion(), serializer.serialize(split));
            assertThat(back).isEqualTo(split);
            assertThat(back.splitId()).isEqualTo(split.splitId());
        }
        assertThat(open.splitId()).isEqualTo("t\u00e9-7");
        assertThat(open.hasStoppingOffset()).isFalse();
    }

    @Test
    void shouldRefuseAnUnknownVersionAndBadOffsets() throws IOException {
        final byte[] bytes = serializer.serialize(new IsthmusPartitionSplit(new TopicPartition("t", 0), 1));
        assertThatThrownBy(() -> serializer.deserialize(2, bytes))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("version: 2");
        assertThatThrownBy(() -> new IsthmusPartitionSplit(new TopicPartition("t", 0), -2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("startingOffset=-2");
    }

    @Test
    void shouldTurnAStateBackIntoASplitStartingAfterTheLastEmittedRecord() {
        final IsthmusPartitionSplitState state =
                new IsthmusPartitionSplitState(new IsthmusPartitionSplit(new TopicPartition("t", 1), 5, 50));
        state.nextOffset(17);
        assertThat(state.toSplit()).isEqualTo(new IsthmusPartitionSplit(new TopicPartition("t", 1), 17, 50));
    }
}
