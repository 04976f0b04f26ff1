package io.isthmus.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.client.consumer.ConsumedRecord;
import io.isthmus.client.consumer.ConsumerBatch;
import io.isthmus.client.consumer.IsthmusConsumer;
import io.isthmus.client.producer.IsthmusProducer;
import io.isthmus.client.producer.Murmur2;
import io.isthmus.protocol.record.HeaderList;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Interop scenarios shared by the isthmus-broker and Apache-Kafka-broker tests. Record {@code i} has key {@code k<i>},
 * value {@code v<i>}, header {@code h=<i>} and timestamp {@code BASE + i}; every check is on all of them.
 */
final class Interop {
    static final long BASE_TIMESTAMP = 1_700_000_000_000L;

    private Interop() {}

    private static byte[] key(final int i) {
        return ("k" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(final int i) {
        return ("v" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static int indexOf(final byte[] value) {
        return Integer.parseInt(new String(value, StandardCharsets.UTF_8).substring(1));
    }

    /** Produces with the isthmus producer, reads with KafkaConsumer; returns the records verified exactly once. */
    static int produceWithIsthmusConsumeWithKafka(
            final String bootstrap,
            final String topic,
            final String compression,
            final int partitions,
            final int records) {
        try (IsthmusProducer producer =
                new IsthmusProducer(Map.of("bootstrap.servers", bootstrap, "compression.type", compression))) {
            final HeaderList headers = new HeaderList();
            for (int i = 0; i < records; i++) {
                headers.clear().add("h", Integer.toString(i).getBytes(StandardCharsets.UTF_8));
                producer.send(
                        topic, IsthmusProducer.ANY_PARTITION, BASE_TIMESTAMP + i, key(i), value(i), headers, null);
            }
            producer.flush();
        }
        final Properties props = new Properties();
        props.put("bootstrap.servers", bootstrap);
        props.put("auto.offset.reset", "earliest");
        props.put("group.id", "kafka-reader-" + topic);
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            final BitSet seen = new BitSet(records);
            final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (seen.cardinality() < records && System.nanoTime() < deadline) {
                final ConsumerRecords<byte[], byte[]> polled = consumer.poll(Duration.ofMillis(500));
                for (final ConsumerRecord<byte[], byte[]> r : polled) {
                    final int i = indexOf(r.value());
                    assertThat(seen.get(i)).as("duplicate %d", i).isFalse();
                    seen.set(i);
                    assertThat(r.key()).isEqualTo(key(i));
                    assertThat(r.partition()).isEqualTo(Murmur2.partitionForKey(key(i), partitions));
                    assertThat(r.timestamp()).isEqualTo(BASE_TIMESTAMP + i);
                    final Header h = r.headers().lastHeader("h");
                    assertThat(new String(h.value(), StandardCharsets.UTF_8)).isEqualTo(Integer.toString(i));
                }
            }
            return seen.cardinality();
        }
    }

    /** Produces with KafkaProducer, reads with the isthmus consumer; returns the records verified exactly once. */
    static int produceWithKafkaConsumeWithIsthmus(
            final String bootstrap,
            final String topic,
            final String compression,
            final int partitions,
            final int records) {
        final Properties props = new Properties();
        props.put("bootstrap.servers", bootstrap);
        props.put("compression.type", compression);
        props.put("linger.ms", "5");
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < records; i++) {
                final ProducerRecord<byte[], byte[]> record =
                        new ProducerRecord<>(topic, null, BASE_TIMESTAMP + i, key(i), value(i));
                record.headers().add("h", Integer.toString(i).getBytes(StandardCharsets.UTF_8));
                producer.send(record);
            }
            producer.flush();
        }
        final BitSet seen = new BitSet(records);
        try (IsthmusConsumer consumer = new IsthmusConsumer(Map.of("bootstrap.servers", bootstrap))) {
            final List<TopicPartition> tps = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                tps.add(new TopicPartition(topic, p));
            }
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (seen.cardinality() < records && System.nanoTime() < deadline) {
                try (ConsumerBatch batch = consumer.poll(Duration.ofMillis(500))) {
                    for (final ConsumedRecord r : batch) {
                        final int i = indexOf(r.valueAsArray());
                        assertThat(seen.get(i)).as("duplicate %d", i).isFalse();
                        seen.set(i);
                        assertThat(r.keyAsArray()).isEqualTo(key(i));
                        assertThat(r.partition()).isEqualTo(Murmur2.partitionForKey(key(i), partitions));
                        assertThat(r.timestamp()).isEqualTo(BASE_TIMESTAMP + i);
                        assertThat(new String(
                                        r.lastHeader("h".getBytes(StandardCharsets.UTF_8))
                                                .toArray(ValueLayout.JAVA_BYTE),
                                        StandardCharsets.UTF_8))
                                .isEqualTo(Integer.toString(i));
                    }
                }
            }
        }
        return seen.cardinality();
    }

    /**
     * An isthmus consumer and a KafkaConsumer in one group split the partitions (range assignment: half each) and
     * together read every record exactly once; returns the number read.
     */
    static int shareGroupWithKafkaConsumer(
            final String bootstrap, final String topic, final int partitions, final int records) throws Exception {
        final String group = "shared-" + topic;
        final BitSet seen = new BitSet(records);
        final AtomicInteger kafkaCount = new AtomicInteger();
        final AtomicInteger kafkaAssigned = new AtomicInteger();
        final AtomicInteger isthmusCount = new AtomicInteger();
        final AtomicBoolean done = new AtomicBoolean();
        final List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        final Thread kafkaThread = Thread.ofPlatform().start(() -> {
            final Properties props = new Properties();
            props.put("bootstrap.servers", bootstrap);
            props.put("group.id", group);
            props.put("auto.offset.reset", "earliest");
            props.put("partition.assignment.strategy", "org.apache.kafka.clients.consumer.RangeAssignor");
            try (KafkaConsumer<byte[], byte[]> consumer =
                    new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
                consumer.subscribe(List.of(topic));
                while (!done.get()) {
                    for (final ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                        synchronized (seen) {
                            assertThat(seen.get(indexOf(r.value()))).isFalse();
                            seen.set(indexOf(r.value()));
                        }
                        kafkaCount.incrementAndGet();
                    }
                    kafkaAssigned.set(consumer.assignment().size());
                }
            } catch (final Throwable t) {
                failures.add(t);
            }
        });
        try (IsthmusConsumer consumer = new IsthmusConsumer(
                Map.of("bootstrap.servers", bootstrap, "group.id", group, "auto.offset.reset", "earliest"))) {
            consumer.subscribe(List.of(topic));
            final long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            boolean produced = false;
            while (System.nanoTime() < deadline && failures.isEmpty()) {
                try (ConsumerBatch batch = consumer.poll(Duration.ofMillis(100))) {
                    for (final ConsumedRecord r : batch) {
                        synchronized (seen) {
                            assertThat(seen.get(indexOf(r.valueAsArray()))).isFalse();
                            seen.set(indexOf(r.valueAsArray()));
                        }
                        isthmusCount.incrementAndGet();
                    }
                }
                if (!produced
                        && consumer.assignment().size() == partitions / 2
                        && kafkaAssigned.get() == partitions - partitions / 2) {
                    produce(bootstrap, topic, partitions, records);
                    produced = true;
                }
                synchronized (seen) {
                    if (seen.cardinality() == records) {
                        break;
                    }
                }
            }
            assertThat(produced)
                    .as("both consumers got their half of the partitions")
                    .isTrue();
            assertThat(consumer.assignment()).hasSize(partitions / 2);
            consumer.commitSync();
            for (final TopicPartition tp : consumer.assignment()) {
                assertThat(consumer.committed(java.util.Set.of(tp))).containsEntry(tp, consumer.position(tp));
            }
        } finally {
            done.set(true);
            kafkaThread.join();
        }
        assertThat(failures).isEmpty();
        assertThat(kafkaCount.get()).isPositive();
        assertThat(isthmusCount.get()).isPositive();
        return seen.cardinality();
    }

    private static void produce(final String bootstrap, final String topic, final int partitions, final int records) {
        try (IsthmusProducer producer = new IsthmusProducer(Map.of("bootstrap.servers", bootstrap))) {
            for (int i = 0; i < records; i++) {
                producer.send(topic, i % partitions, BASE_TIMESTAMP + i, key(i), value(i), null, null);
            }
            producer.flush();
        }
    }
}
