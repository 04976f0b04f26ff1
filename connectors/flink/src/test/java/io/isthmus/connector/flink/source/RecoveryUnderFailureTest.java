package io.isthmus.connector.flink.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.connector.flink.sink.IsthmusSink;
import io.isthmus.connector.flink.source.enumerator.initializer.OffsetsInitializer;
import io.isthmus.connector.flink.testing.FlinkTestJobs;
import io.isthmus.connector.flink.testing.InjectedFailures;
import io.isthmus.connector.flink.testing.IsthmusBrokerExtension;
import io.isthmus.connector.flink.testing.LongTopics;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Jobs under injected failures that restart them from their last checkpoint twice. Exactly-once state: a job counts
 * 1,000,000 records per key in keyed state and ends with every record counted exactly once (the source's offsets live
 * in the same checkpoints as the state, so a restore rewinds both together). At-least-once output: a job writing with
 * the at-least-once sink leaves every record in the output topic.
 */
class RecoveryUnderFailureTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = FlinkTestJobs.miniCluster();

    @RegisterExtension
    static final IsthmusBrokerExtension BROKER = new IsthmusBrokerExtension();

    private static final int RECORDS = 1_000_000;
    private static final int PARTITIONS = 4;
    private static final int KEYS = 100;

    /** Counts per key in keyed state and emits each key's count once, when the input ends. */
    static final class CountPerKey extends KeyedProcessFunction<Integer, Long, Tuple2<Integer, Long>> {
        private transient ValueState<Long> count;

        @Override
        public void open(final org.apache.flink.api.common.functions.OpenContext context) {
            count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
        }

        @Override
        public void processElement(final Long value, final Context ctx, final Collector<Tuple2<Integer, Long>> out)
                throws Exception {
            final Long current = count.value();
            if (current == null) {
                ctx.timerService().registerEventTimeTimer(Long.MAX_VALUE);
            }
            count.update(current == null ? 1 : current + 1);
        }

        @Override
        public void onTimer(final long timestamp, final OnTimerContext ctx, final Collector<Tuple2<Integer, Long>> out)
                throws Exception {
            out.collect(Tuple2.of(ctx.getCurrentKey(), count.value()));
        }
    }

    /** Writes longs 0..records-1, big-endian, round-robin over the partitions; waits for every acknowledgement. */
    private static void writeLongs(final String topic, final int records) throws Exception {
        BROKER.createTopic(topic, PARTITIONS);
        LongTopics.write(BROKER.bootstrapServers(), topic, PARTITIONS, records);
    }

    /** Restarts from the last checkpoint on failure, up to five times, at once; checkpoints every 50 ms. */
    private static StreamExecutionEnvironment restarting() {
        InjectedFailures.reset();
        return FlinkTestJobs.restarting(2, 50);
    }

    @Test
    void shouldCountEveryRecordExactlyOnceAcrossTwoRestarts() throws Exception {
        final String topic = "exactly-once";
        writeLongs(topic, RECORDS);
        final StreamExecutionEnvironment env = restarting();
        final Map<Integer, Long> counts = new HashMap<>();
        try (CloseableIterator<Tuple2<Integer, Long>> it = env.fromSource(
                        IsthmusSource.<Long>builder()
                                .setBootstrapServers(BROKER.bootstrapServers())
                                .setTopics(topic)
                                .setProperty("transport", "tcp")
                                .setBounded(OffsetsInitializer.latest())
                                .setDeserializer(new LongTopics.Deserializer())
                                .build(),
                        WatermarkStrategy.noWatermarks(),
                        "isthmus")
                .map(new InjectedFailures(RECORDS, 2, 0))
                .keyBy(value -> (int) (value % KEYS))
                .process(new CountPerKey())
                .executeAndCollect("exactly-once")) {
            it.forEachRemaining(t ->
                    assertThat(counts.put(t.f0, t.f1)).as("key %s once", t.f0).isNull());
        }
        assertThat(InjectedFailures.failed()).as("injected failures").isEqualTo(2);
        assertThat(InjectedFailures.passed())
                .as("records replayed after the restarts")
                .isGreaterThan(RECORDS);
        assertThat(counts).hasSize(KEYS);
        for (int key = 0; key < KEYS; key++) {
            assertThat(counts.get(key)).as("count of key %s", key).isEqualTo((long) RECORDS / KEYS);
        }
    }

    /**
     * The at-least-once sink under the same two failures: records the job wrote before a failure may be written again
     * after the restart, but none is missing from the output.
     */
    @Test
    void shouldWriteEveryRecordAtLeastOnceAcrossTwoRestarts() throws Exception {
        final int records = 200_000;
        copyThroughTwoFailures("alo", records, DeliveryGuarantee.AT_LEAST_ONCE);

        final long[] written = readLongs("alo-out", "read_uncommitted", records);
        final BitSet seen = new BitSet(records);
        for (final long value : written) {
            seen.set((int) value);
        }
        assertThat(seen.cardinality()).as("distinct records in the output").isEqualTo(records);
        assertThat(written.length).as("records written, replays included").isGreaterThanOrEqualTo(records);
    }

    /**
     * The exactly-once sink under the same two failures: the records a failed run wrote after its last checkpoint were
     * in a transaction the restart aborts, so a read_committed consumer of the output reads every input record exactly
     * once, while the log itself (read_uncommitted) still holds the aborted copies.
     */
    @Test
    void shouldWriteEveryRecordExactlyOnceAcrossTwoRestarts() throws Exception {
        final int records = 200_000;
        copyThroughTwoFailures("eos", records, DeliveryGuarantee.EXACTLY_ONCE);

        final BitSet seen = new BitSet(records);
        for (final long value : readLongs("eos-out", "read_committed", records)) {
            assertThat(seen.get((int) value)).as("record %s once", value).isFalse();
            seen.set((int) value);
        }
        assertThat(seen.cardinality()).as("distinct records in the output").isEqualTo(records);
        assertThat(readLongs("eos-out", "read_uncommitted", records).length)
                .as("the log still holds what the failed runs wrote and their restarts aborted")
                .isGreaterThan(records);
    }

    /** Copies {@code records} longs from {@code <name>-in} to {@code <name>-out} with two injected failures. */
    private static void copyThroughTwoFailures(final String name, final int records, final DeliveryGuarantee guarantee)
            throws Exception {
        writeLongs(name + "-in", records);
        BROKER.createTopic(name + "-out", PARTITIONS);
        final StreamExecutionEnvironment env = restarting();
        env.fromSource(
                        IsthmusSource.<Long>builder()
                                .setBootstrapServers(BROKER.bootstrapServers())
                                .setTopics(name + "-in")
                                .setBounded(OffsetsInitializer.latest())
                                .setDeserializer(new LongTopics.Deserializer())
                                .build(),
                        WatermarkStrategy.noWatermarks(),
                        "isthmus")
                .map(new InjectedFailures(records, 2, 0))
                .sinkTo(IsthmusSink.<Long>builder()
                        .setBootstrapServers(BROKER.bootstrapServers())
                        .setDeliveryGuarantee(guarantee)
                        .setTransactionalIdPrefix(name + "-job")
                        .setRecordSerializer((value, context, timestamp) ->
                                new ProducerRecord<>(name + "-out", null, null, LongTopics.bytes(value)))
                        .build());
        env.execute(name);
        assertThat(InjectedFailures.failed()).as("injected failures").isEqualTo(2);
    }

    /** Every value of {@code topic} a consumer at {@code isolation} reads to the partitions' ends. */
    private static long[] readLongs(final String topic, final String isolation, final int expectedAtLeast) {
        return LongTopics.read(BROKER.bootstrapServers(), topic, PARTITIONS, isolation, expectedAtLeast);
    }
}
