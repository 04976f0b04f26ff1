package io.isthmus.connector.flink.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.client.consumer.ConsumedRecord;
import io.isthmus.client.consumer.ConsumerBatch;
import io.isthmus.client.consumer.IsthmusConsumer;
import io.isthmus.connector.flink.source.reader.deserializer.IsthmusRecordDeserializationSchema;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Topics of big-endian longs, the input and output of the recovery tests: written with kafka-clients (acks=all, so
 * written means acknowledged), read back with the isthmus consumer at either isolation level, and parsed in place by
 * the source.
 */
public final class LongTopics {
    private static final ValueLayout.OfLong BIG_ENDIAN_LONG =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private LongTopics() {}

    /** The source's deserializer: each record's value is one long, read from the record's slice. */
    public static final class Deserializer implements IsthmusRecordDeserializationSchema<Long> {
        @Override
        public void deserialize(final ConsumedRecord record, final Collector<Long> out) {
            out.collect(record.segment().get(BIG_ENDIAN_LONG, record.valueOffset()));
        }

        @Override
        public TypeInformation<Long> getProducedType() {
            return Types.LONG;
        }
    }

    /** A record value: the long, big-endian. */
    public static byte[] bytes(final long value) {
        return ByteBuffer.allocate(Long.BYTES).putLong(value).array();
    }

    /** Writes longs 0..records-1 round robin over the existing topic's partitions; waits for every acknowledgement. */
    public static void write(final String bootstrapServers, final String topic, final int partitions, final int records)
            throws Exception {
        final Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        final List<Future<RecordMetadata>> acks = new ArrayList<>(records);
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (long i = 0; i < records; i++) {
                acks.add(producer.send(new ProducerRecord<>(topic, (int) (i % partitions), null, bytes(i))));
            }
            producer.flush();
        }
        for (final Future<RecordMetadata> ack : acks) {
            ack.get();
        }
    }

    /** Every value of {@code topic} a consumer at {@code isolation} reads to the ends the partitions have now. */
    public static long[] read(
            final String bootstrapServers,
            final String topic,
            final int partitions,
            final String isolation,
            final int expectedAtLeast) {
        final List<TopicPartition> assigned = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            assigned.add(new TopicPartition(topic, p));
        }
        long[] values = new long[Math.max(1, expectedAtLeast)];
        int count = 0;
        try (IsthmusConsumer consumer = new IsthmusConsumer(
                Map.of("bootstrap.servers", bootstrapServers, "transport", "tcp", "isolation.level", isolation))) {
            consumer.assign(assigned);
            consumer.seekToBeginning(assigned);
            final Map<TopicPartition, Long> ends = consumer.endOffsets(assigned);
            final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() - deadline < 0 && !reachedEnds(consumer, ends)) {
                try (ConsumerBatch batch = consumer.poll(Duration.ofMillis(200))) {
                    for (final ConsumedRecord record : batch) {
                        if (count == values.length) {
                            values = Arrays.copyOf(values, count * 2);
                        }
                        values[count++] = record.segment().get(BIG_ENDIAN_LONG, record.valueOffset());
                    }
                }
            }
            assertThat(reachedEnds(consumer, ends))
                    .as("%s read to the end", isolation)
                    .isTrue();
        }
        return Arrays.copyOf(values, count);
    }

    private static boolean reachedEnds(final IsthmusConsumer consumer, final Map<TopicPartition, Long> ends) {
        for (final Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
            if (consumer.position(end.getKey()) < end.getValue()) {
                return false;
            }
        }
        return true;
    }
}
