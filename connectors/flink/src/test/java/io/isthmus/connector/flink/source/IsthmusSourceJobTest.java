package io.isthmus.connector.flink.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.isthmus.client.consumer.ConsumedRecord;
import io.isthmus.client.consumer.IsthmusConsumer;
import io.isthmus.connector.flink.source.enumerator.initializer.OffsetsInitializer;
import io.isthmus.connector.flink.source.reader.deserializer.IsthmusRecordDeserializationSchema;
import io.isthmus.connector.flink.testing.FlinkTestJobs;
import io.isthmus.connector.flink.testing.IsthmusBrokerExtension;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.Collector;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The source in real jobs on a Flink MiniCluster, reading from an isthmus broker in the test JVM. */
class IsthmusSourceJobTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = FlinkTestJobs.miniCluster();

    @RegisterExtension
    static final IsthmusBrokerExtension BROKER = new IsthmusBrokerExtension();

    private static final long T0 = 1_700_000_000_000L;

    private static IsthmusSourceBuilder<String> strings(final String topic) {
        return IsthmusSource.<String>builder()
                .setBootstrapServers(BROKER.bootstrapServers())
                .setTopics(topic)
                .setProperty("transport", "tcp")
                .setValueOnlyDeserializer(new SimpleStringSchema());
    }

    private static List<String> expected(final String prefix, final int from, final int count) {
        final List<String> values = new ArrayList<>();
        for (int i = from; i < from + count; i++) {
            values.add(prefix + "-" + i);
        }
        return values;
    }

    /** Values of one partition must come in offset order: their numbers rise. */
    private static void assertInOrderPerPrefix(final List<String> values) {
        final Map<String, Integer> last = new HashMap<>();
        for (final String value : values) {
            final int dash = value.lastIndexOf('-');
            final String prefix = value.substring(0, dash);
            final int n = Integer.parseInt(value.substring(dash + 1));
            final Integer before = last.put(prefix, n);
            assertThat(before == null || before < n)
                    .as("%s after %s-%s: one partition's records in order", value, prefix, before)
                    .isTrue();
        }
    }

    @Test
    void shouldReadEveryRecordOnceInPartitionOrderAndEndWhenBounded() throws Exception {
        final String topic = "bounded";
        BROKER.createTopic(topic, 3);
        for (int p = 0; p < 3; p++) {
            BROKER.write(topic, p, "p" + p, 0, 2_000, T0);
        }
        final StreamExecutionEnvironment env = FlinkTestJobs.failFast(2);
        final IsthmusSource<String> source =
                strings(topic).setBounded(OffsetsInitializer.latest()).build();
        final List<String> values = new ArrayList<>();
        try (CloseableIterator<String> it = env.fromSource(source, WatermarkStrategy.noWatermarks(), "isthmus")
                .executeAndCollect()) {
            it.forEachRemaining(values::add);
        }
        final List<String> all = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            all.addAll(expected("p" + p, 0, 2_000));
        }
        assertThat(values).containsExactlyInAnyOrderElementsOf(all);
        assertInOrderPerPrefix(values);
    }

    /** Reads each value as a big-endian long straight from the slice: no copy of the record. */
    static final class LongValues implements IsthmusRecordDeserializationSchema<Long> {
        @Override
        public void deserialize(final ConsumedRecord record, final Collector<Long> out) {
            final MemorySegment value = record.value();
            out.collect(value.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 0));
        }

        @Override
        public TypeInformation<Long> getProducedType() {
            return Types.LONG;
        }
    }

    @Test
    void shouldHandTheZeroCopyDeserializerEachRecordInPlace() throws Exception {
        final String topic = "longs";
        BROKER.createTopic(topic, 2);
        final List<java.util.concurrent.Future<?>> acks = new ArrayList<>();
        try (var producer = BROKER.producer()) {
            for (long i = 0; i < 5_000; i++) {
                final byte[] value = java.nio.ByteBuffer.allocate(8).putLong(i).array();
                acks.add(producer.send(
                        new org.apache.kafka.clients.producer.ProducerRecord<>(topic, (int) (i % 2), null, value)));
            }
        }
        for (final java.util.concurrent.Future<?> ack : acks) {
            ack.get();
        }
        final IsthmusSource<Long> source = IsthmusSource.<Long>builder()
                .setBootstrapServers(BROKER.bootstrapServers())
                .setTopics(topic)
                .setBounded(OffsetsInitializer.latest())
                .setDeserializer(new LongValues())
                .build();
        final List<Long> values = new ArrayList<>();
        try (CloseableIterator<Long> it = FlinkTestJobs.failFast(2)
                .fromSource(source, WatermarkStrategy.noWatermarks(), "isthmus")
                .executeAndCollect()) {
            it.forEachRemaining(values::add);
        }
        assertThat(values).hasSize(5_000).doesNotHaveDuplicates();
        assertThat(values.stream().mapToLong(Long::longValue).sum()).isEqualTo(4_999L * 5_000 / 2);
    }

    @Test
    void shouldStartAtTimestampAtExplicitOffsetsAndAtCommittedOffsets() throws Exception {
        final String topic = "starts";
        BROKER.createTopic(topic, 2);
        BROKER.write(topic, 0, "a", 0, 1_000, T0);
        BROKER.write(topic, 1, "b", 0, 1_000, T0);
        final TopicPartition a = new TopicPartition(topic, 0);
        final TopicPartition b = new TopicPartition(topic, 1);

        final List<String> byTime = collectBounded(strings(topic)
                .setStartingOffsets(OffsetsInitializer.timestamp(T0 + 900))
                .setBounded(OffsetsInitializer.latest())
                .build());
        final List<String> lastHundred = new ArrayList<>(expected("a", 900, 100));
        lastHundred.addAll(expected("b", 900, 100));
        assertThat(byTime).containsExactlyInAnyOrderElementsOf(lastHundred);

        final List<String> explicit = collectBounded(strings(topic)
                .setStartingOffsets(OffsetsInitializer.offsets(Map.of(a, 990L, b, 995L)))
                .setBounded(OffsetsInitializer.latest())
                .build());
        final List<String> tails = new ArrayList<>(expected("a", 990, 10));
        tails.addAll(expected("b", 995, 5));
        assertThat(explicit).containsExactlyInAnyOrderElementsOf(tails);

        final String group = "starts-group";
        try (IsthmusConsumer committer = new IsthmusConsumer(
                Map.of("bootstrap.servers", BROKER.bootstrapServers(), "group.id", group, "transport", "tcp"))) {
            committer.commitSync(Map.of(a, 997L));
        }
        final List<String> committed = collectBounded(strings(topic)
                .setGroupId(group)
                .setStartingOffsets(OffsetsInitializer.committedOffsets(
                        io.isthmus.client.consumer.ConsumerConfig.OffsetReset.LATEST))
                .setBounded(OffsetsInitializer.latest())
                .build());
        assertThat(committed)
                .as("partition a from its committed offset, b (nothing committed) from the latest")
                .containsExactlyInAnyOrderElementsOf(expected("a", 997, 3));
    }

    private static List<String> collectBounded(final IsthmusSource<String> source) throws Exception {
        final List<String> values = new ArrayList<>();
        try (CloseableIterator<String> it = FlinkTestJobs.failFast(2)
                .fromSource(source, WatermarkStrategy.noWatermarks(), "isthmus")
                .executeAndCollect()) {
            it.forEachRemaining(values::add);
        }
        return values;
    }

    @Test
    void shouldCommitCheckpointedOffsetsToTheGroup() throws Exception {
        final String topic = "commits";
        final String group = "commits-group";
        BROKER.createTopic(topic, 2);
        BROKER.write(topic, 0, "c0", 0, 500, T0);
        BROKER.write(topic, 1, "c1", 0, 300, T0);
        final StreamExecutionEnvironment env = FlinkTestJobs.failFast(2);
        env.enableCheckpointing(100);
        final IsthmusSource<String> source = strings(topic).setGroupId(group).build();
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "isthmus").sinkTo(new DiscardingSink<>());
        final JobClient job = env.executeAsync("commits");
        final TopicPartition p0 = new TopicPartition(topic, 0);
        final TopicPartition p1 = new TopicPartition(topic, 1);
        try (IsthmusConsumer reader = new IsthmusConsumer(
                Map.of("bootstrap.servers", BROKER.bootstrapServers(), "group.id", group, "transport", "tcp"))) {
            final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            Map<TopicPartition, Long> committed = Map.of();
            while (System.nanoTime() - deadline < 0) {
                committed = reader.committed(Set.of(p0, p1));
                if (Long.valueOf(500).equals(committed.get(p0))
                        && Long.valueOf(300).equals(committed.get(p1))) {
                    break;
                }
                Thread.sleep(100);
            }
            assertThat(committed).containsEntry(p0, 500L).containsEntry(p1, 300L);
        } finally {
            job.cancel().get();
        }
    }

    @Test
    void shouldDiscoverANewTopicOfItsPatternWhileRunning() throws Exception {
        BROKER.createTopic("disc-a", 1);
        BROKER.write("disc-a", 0, "da", 0, 100, T0);
        final StreamExecutionEnvironment env = FlinkTestJobs.failFast(2);
        final IsthmusSource<String> source = IsthmusSource.<String>builder()
                .setBootstrapServers(BROKER.bootstrapServers())
                .setTopicPattern(Pattern.compile("disc-.*"))
                .setProperty(IsthmusSourceOptions.PARTITION_DISCOVERY_INTERVAL_MS, "200")
                .setValueOnlyDeserializer(new SimpleStringSchema())
                .build();
        final Set<String> seen = ConcurrentHashMap.newKeySet();
        try (CloseableIterator<String> it = env.fromSource(source, WatermarkStrategy.noWatermarks(), "isthmus")
                .executeAndCollect("discovery")) {
            while (seen.size() < 100) {
                seen.add(it.next());
            }
            BROKER.createTopic("disc-b", 2);
            BROKER.write("disc-b", 0, "db0", 0, 50, T0);
            BROKER.write("disc-b", 1, "db1", 0, 50, T0);
            while (seen.size() < 200) {
                seen.add(it.next());
            }
        }
        final Set<String> all = new java.util.HashSet<>(expected("da", 0, 100));
        all.addAll(expected("db0", 0, 50));
        all.addAll(expected("db1", 0, 50));
        assertThat(seen).isEqualTo(all);
    }

    @Test
    void shouldDiscoverPartitionsAddedToItsTopicWhileRunning() throws Exception {
        BROKER.createTopic("grow", 1);
        BROKER.write("grow", 0, "g0", 0, 50, T0);
        final IsthmusSource<String> source = strings("grow")
                .setProperty(IsthmusSourceOptions.PARTITION_DISCOVERY_INTERVAL_MS, "200")
                .build();
        final Set<String> seen = ConcurrentHashMap.newKeySet();
        try (CloseableIterator<String> it = FlinkTestJobs.failFast(2)
                .fromSource(source, WatermarkStrategy.noWatermarks(), "isthmus")
                .executeAndCollect("partition discovery")) {
            while (seen.size() < 50) {
                seen.add(it.next());
            }
            BROKER.admin().createPartitions("grow", 3);
            BROKER.write("grow", 1, "g1", 0, 30, T0);
            BROKER.write("grow", 2, "g2", 0, 30, T0);
            while (seen.size() < 110) {
                seen.add(it.next());
            }
        }
        final Set<String> all = new java.util.HashSet<>(expected("g0", 0, 50));
        all.addAll(expected("g1", 0, 30));
        all.addAll(expected("g2", 0, 30));
        assertThat(seen).as("the new partitions read from their first record").isEqualTo(all);
    }

    @Test
    void shouldFailTheJobNamingAMissingTopic() {
        final IsthmusSource<String> source =
                strings("no-such-topic").setBounded(OffsetsInitializer.latest()).build();
        assertThatThrownBy(() -> collectBounded(source))
                .hasStackTraceContaining("no-such-topic")
                .hasStackTraceContaining("partition discovery failed");
    }

    /** Throws on the record with value "bad-3". */
    static final class Picky implements IsthmusRecordDeserializationSchema<String> {
        @Override
        public void deserialize(final ConsumedRecord record, final Collector<String> out) {
            final String value = record.valueAsString();
            if (value.equals("bad-3")) {
                throw new IllegalArgumentException("cannot parse " + value);
            }
            out.collect(value);
        }

        @Override
        public TypeInformation<String> getProducedType() {
            return Types.STRING;
        }
    }

    @Test
    void shouldFailTheJobNamingTheRecordADeserializerRejected() throws Exception {
        BROKER.createTopic("bad", 1);
        BROKER.write("bad", 0, "bad", 0, 10, T0);
        final IsthmusSource<String> source = IsthmusSource.<String>builder()
                .setBootstrapServers(BROKER.bootstrapServers())
                .setTopics("bad")
                .setBounded(OffsetsInitializer.latest())
                .setDeserializer(new Picky())
                .build();
        assertThatThrownBy(() -> collectBounded(source))
                .hasStackTraceContaining("failed to deserialize a record: topic=bad, partition=0, offset=3")
                .hasStackTraceContaining("cannot parse bad-3");
    }
}
