package io.isthmus.fuzz;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The well-behaved client of a load run: kafka-clients produces {@code records} records of 100 bytes to a fresh topic
 * ({@code acks=1}, as fast as it can) and a consumer reads them all back; both are timed. Every record must come back,
 * in order, with its value.
 */
final class GoodTraffic {
    private static final int RECORD_BYTES = 100;

    /** One round: records per second each way. */
    record Rates(double produced, double consumed) {}

    private final String bootstrap;
    private final int records;
    private int round;

    GoodTraffic(final String bootstrap, final int records) {
        this.bootstrap = bootstrap;
        this.records = records;
    }

    /** A topic with data, for the slow readers to fetch. */
    String seedTopic() throws Exception {
        final String topic = "isthmus-load-seed";
        createTopic(topic);
        produce(topic, 1_000);
        return topic;
    }

    Rates round() throws Exception {
        final String topic = "isthmus-load-round-" + round++;
        createTopic(topic);
        final long produceStart = System.nanoTime();
        produce(topic, records);
        final double produced = records / seconds(produceStart);
        final long consumeStart = System.nanoTime();
        consume(topic);
        return new Rates(produced, records / seconds(consumeStart));
    }

    private static double seconds(final long start) {
        return (System.nanoTime() - start) / 1e9;
    }

    private void createTopic(final String topic) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
    }

    private void produce(final String topic, final int count) throws Exception {
        final Properties props = new Properties();
        props.put("bootstrap.servers", bootstrap);
        props.put("acks", "1");
        props.put("linger.ms", "5");
        props.put("batch.size", Integer.toString(64 * 1024));
        props.put("key.serializer", ByteArraySerializer.class.getName());
        props.put("value.serializer", ByteArraySerializer.class.getName());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, value(i)));
            }
            producer.flush();
        }
    }

    private void consume(final String topic) {
        final Properties props = new Properties();
        props.put("bootstrap.servers", bootstrap);
        props.put("key.deserializer", ByteArrayDeserializer.class.getName());
        props.put("value.deserializer", ByteArrayDeserializer.class.getName());
        final TopicPartition partition = new TopicPartition(topic, 0);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            int next = 0;
            final long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (next < records) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            "read " + next + " of " + records + " records of " + topic + " in two minutes");
                }
                for (final ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    if (record.offset() != next || !java.util.Arrays.equals(record.value(), value(next))) {
                        throw new IllegalStateException("record " + next + " of " + topic + " came back as offset "
                                + record.offset() + " with another value");
                    }
                    next++;
                }
            }
        }
    }

    private static byte[] value(final int index) {
        final byte[] value = new byte[RECORD_BYTES];
        for (int i = 0; i < 4; i++) {
            value[i] = (byte) (index >>> (24 - 8 * i));
        }
        return value;
    }

    static double median(final List<Double> values) {
        final List<Double> sorted = new ArrayList<>(values);
        sorted.sort(null);
        final int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
}
