package io.isthmus.client.producer;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.client.cluster.PartitionMetadata;
import io.isthmus.client.cluster.TopicMetadata;
import io.isthmus.protocol.record.RecordBatchBuilder;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class RecordAccumulatorTest {
    private final RecordAccumulator accumulator = new RecordAccumulator(
            new ProducerConfig(Map.of("bootstrap.servers", "127.0.0.1:9", "linger.ms", "0")),
            (topic, partition, baseOffset, recordCount, error) -> {});
    private final AtomicInteger wakeups = new AtomicInteger();
    private final PartitionQueue queue;

    RecordAccumulatorTest() {
        accumulator.wakeSender(wakeups::incrementAndGet);
        queue = accumulator.register(new TopicMetadata(
                        "t",
                        Uuid.randomUuid(),
                        Errors.NONE,
                        false,
                        List.of(new PartitionMetadata("t", 0, 0, 0, List.of(0), List.of(0)))))
                .partitions[0];
    }

    @Test
    void shouldWakeTheSenderWhenARecordOpensANewBatch() {
        append(new byte[10]);

        // Without this the lone record would wait out the sender's idle park instead of linger.ms.
        assertThat(wakeups).hasValue(1);
    }

    @Test
    void shouldNotWakeTheSenderForEveryRecordOfAnOpenBatch() {
        for (int i = 0; i < 10; i++) {
            append(new byte[10]);
        }

        assertThat(wakeups).hasValue(1);
    }

    @Test
    void shouldAddQueuesForPartitionsATopicGainedAndKeepTheOldOnes() {
        append(new byte[10]);
        final Uuid id = queue.topicId;
        final List<PartitionMetadata> three = List.of(
                new PartitionMetadata("t", 0, 0, 0, List.of(0), List.of(0)),
                new PartitionMetadata("t", 1, 0, 0, List.of(0), List.of(0)),
                new PartitionMetadata("t", 2, 0, 0, List.of(0), List.of(0)));

        final TopicQueues before = accumulator.topic("t");
        before.advanceSticky();
        final TopicQueues after = accumulator.register(new TopicMetadata("t", id, Errors.NONE, false, three));
        final PartitionQueue[] grown = after.partitions;

        assertThat(grown).hasSize(3);
        assertThat(grown[0]).as("the open batch stays where it is").isSameAs(queue);
        assertThat(queue.open).isNotNull();
        assertThat(grown[2].partition).isEqualTo(2);
        assertThat(grown[2].leader).isZero();
        assertThat(accumulator.topic("t")).isSameAs(after);
        assertThat(after.sticky()).as("the sticky position survives the growth").isEqualTo(before.sticky());
        assertThat(accumulator.queues).containsExactly(grown);
        assertThat(accumulator.register(new TopicMetadata("t", id, Errors.NONE, false, three.subList(0, 2))))
                .as("metadata that has not seen the new partitions yet takes none away")
                .isSameAs(after);
    }

    private void append(final byte[] value) {
        queue.lock.lock();
        try {
            final RecordBatchBuilder builder = accumulator.reserve(queue, 1L, -1, value.length, null, false);
            final int offsetDelta = builder.recordCount();
            builder.append(1L, null, value);
            accumulator.appended(queue, offsetDelta, null, 1L);
        } finally {
            queue.lock.unlock();
        }
    }
}
