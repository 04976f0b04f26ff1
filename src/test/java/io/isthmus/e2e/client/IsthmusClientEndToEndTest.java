package io.isthmus.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.broker.Broker;
import io.isthmus.client.admin.IsthmusAdmin;
import io.isthmus.client.consumer.ConsumedRecord;
import io.isthmus.client.consumer.ConsumerBatch;
import io.isthmus.client.consumer.IsthmusConsumer;
import io.isthmus.client.producer.IsthmusProducer;
import io.isthmus.client.producer.Murmur2;
import io.isthmus.client.producer.RecordMetadata;
import io.isthmus.e2e.EmbeddedBroker;
import io.isthmus.protocol.record.HeaderList;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The isthmus producer and zero-copy consumer against an in-process isthmus broker. */
class IsthmusClientEndToEndTest {
    @TempDir
    static Path logDir;

    private static Broker broker;
    private static IsthmusAdmin admin;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = EmbeddedBroker.start(logDir);
        admin = new IsthmusAdmin(broker.bootstrapServers());
    }

    @AfterAll
    static void stopBroker() throws Exception {
        admin.close();
        broker.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"none", "lz4", "zstd"})
    void shouldDeliverEveryRecordWithKeyHeadersAndTimestamp(final String compression) {
        final String topic = "e2e-" + compression;
        final int partitions = 3;
        final int records = 20_000;
        admin.createTopic(topic, partitions, (short) 1);
        final long baseTimestamp = 1_700_000_000_000L;
        try (IsthmusProducer producer = new IsthmusProducer(Map.of(
                "bootstrap.servers", broker.bootstrapServers(), "compression.type", compression, "linger.ms", "5"))) {
            final HeaderList headers = new HeaderList();
            CompletableFuture<RecordMetadata> last = null;
            for (int i = 0; i < records; i++) {
                headers.clear().add("seq", Integer.toString(i).getBytes(StandardCharsets.UTF_8));
                final byte[] key = ("key-" + i).getBytes(StandardCharsets.UTF_8);
                final byte[] value = ("value-" + i).getBytes(StandardCharsets.UTF_8);
                if (i % 1000 == 0) {
                    last = producer.sendAsync(
                            topic, IsthmusProducer.ANY_PARTITION, baseTimestamp + i, key, value, headers);
                } else {
                    producer.send(topic, IsthmusProducer.ANY_PARTITION, baseTimestamp + i, key, value, headers, null);
                }
            }
            producer.flush();
            assertThat(last).isCompleted();
            assertThat(last.join().offset()).isGreaterThanOrEqualTo(0);
        }

        final BitSet seen = new BitSet(records);
        int duplicates = 0;
        try (IsthmusConsumer consumer = new IsthmusConsumer(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
            final List<TopicPartition> tps = admin.partitionsOf(topic);
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            while (seen.cardinality() < records) {
                try (ConsumerBatch batch = consumer.poll(Duration.ofSeconds(5))) {
                    assertThat(batch.isEmpty())
                            .as("records left: %d", records - seen.cardinality())
                            .isFalse();
                    for (final ConsumedRecord record : batch) {
                        final String value = record.valueAsString();
                        final int i = Integer.parseInt(value.substring("value-".length()));
                        if (seen.get(i)) {
                            duplicates++;
                        }
                        seen.set(i);
                        final byte[] key = ("key-" + i).getBytes(StandardCharsets.UTF_8);
                        assertThat(record.keyAsArray()).isEqualTo(key);
                        assertThat(record.partition()).isEqualTo(Murmur2.partitionForKey(key, partitions));
                        assertThat(record.timestamp()).isEqualTo(baseTimestamp + i);
                        assertThat(record.headerCount()).isEqualTo(1);
                        assertThat(record.headerKey(0)).isEqualTo("seq");
                        assertThat(new String(
                                        record.headerValue(0).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8))
                                .isEqualTo(Integer.toString(i));
                        assertThat(record.topic()).isEqualTo(topic);
                    }
                }
            }
            for (final TopicPartition tp : tps) {
                assertThat(consumer.position(tp))
                        .isEqualTo(admin.endOffsets(topic).get(tp));
            }
        }
        assertThat(duplicates).isZero();
        assertThat(seen.cardinality()).isEqualTo(records);
    }

    @Test
    void shouldDeliverThroughTheCallbackPathAndClaimedValues() {
        final String topic = "e2e-claim";
        admin.createTopic(topic, 1, (short) 1);
        final int records = 5_000;
        try (IsthmusProducer producer = new IsthmusProducer(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
            final io.isthmus.client.producer.ValueClaim claim = new io.isthmus.client.producer.ValueClaim();
            for (int i = 0; i < records; i++) {
                producer.claim(topic, 0, IsthmusProducer.NOW, null, 8, null, claim);
                claim.buffer().set(ValueLayout.JAVA_LONG_UNALIGNED, claim.offset(), i);
                claim.commit();
            }
            producer.flush();
        }
        final long[] expected = {0};
        try (IsthmusConsumer consumer = new IsthmusConsumer(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
            final TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            while (expected[0] < records) {
                final int n = consumer.poll(
                        record -> {
                            final MemorySegment segment = record.segment();
                            assertThat(record.valueSize()).isEqualTo(8);
                            assertThat(segment.get(ValueLayout.JAVA_LONG_UNALIGNED, record.valueOffset()))
                                    .isEqualTo(expected[0]);
                            assertThat(record.offset()).isEqualTo(expected[0]);
                            expected[0]++;
                        },
                        1000,
                        Duration.ofSeconds(5));
                assertThat(n).as("records left: %d", records - expected[0]).isPositive();
            }
            assertThat(consumer.position(tp)).isEqualTo(records);
        }
    }

    /**
     * A stream engine's commits: offsets of partitions the committing consumer is not assigned, committed without
     * joining the group, read back by a consumer of the group that has no assignment either and by the admin client.
     */
    @Test
    void shouldCommitAndReadOffsetsOfUnassignedPartitionsThroughConsumerAndAdmin() throws Exception {
        final String topic = "unassigned-commits";
        admin.createTopic(topic, 3, (short) 1);
        final TopicPartition p0 = new TopicPartition(topic, 0);
        final TopicPartition p2 = new TopicPartition(topic, 2);
        final Map<String, Object> settings =
                Map.of("bootstrap.servers", broker.bootstrapServers(), "group.id", "engine", "transport", "tcp");
        try (IsthmusConsumer committer = new IsthmusConsumer(settings)) {
            committer.commitSync(Map.of(p0, 7L));
            final CompletableFuture<Map<TopicPartition, Long>> async = new CompletableFuture<>();
            committer.commitAsync(Map.of(p2, 11L), (offsets, failure) -> {
                if (failure != null) {
                    async.completeExceptionally(failure);
                } else {
                    async.complete(offsets);
                }
            });
            assertThat(async.get()).containsExactly(Map.entry(p2, 11L));
        }
        try (IsthmusConsumer reader = new IsthmusConsumer(settings)) {
            assertThat(reader.committed(java.util.Set.of(p0, new TopicPartition(topic, 1), p2)))
                    .containsOnly(Map.entry(p0, 7L), Map.entry(p2, 11L));
        }
        assertThat(admin.listConsumerGroupOffsets("engine", List.of(p0, new TopicPartition(topic, 1), p2)))
                .containsOnly(Map.entry(p0, 7L), Map.entry(p2, 11L));
        assertThat(admin.listConsumerGroupOffsets("no-such-group", List.of(p0))).isEmpty();
    }
}
