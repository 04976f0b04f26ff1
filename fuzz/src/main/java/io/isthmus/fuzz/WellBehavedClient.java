package io.isthmus.fuzz;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The client that keeps working while the fuzzer attacks: a kafka-clients idempotent producer ({@code acks=all})
 * writing numbered values to its own topic, and a consumer reading them. At the end every acknowledged record must be
 * at its acknowledged offset with its value, once: no acknowledged record lost, none duplicated.
 *
 * <p>Its topic and group names are longer than any name the fuzzer makes up ({@link HostileValues#MAX_RANDOM_NAME}),
 * so the fuzz cannot delete them by name, which an unauthenticated broker would allow anyone.
 */
final class WellBehavedClient implements AutoCloseable {
    static final String TOPIC = "isthmus-fuzz-well-behaved";
    private static final int PARTITIONS = 3;

    /** What the check found. */
    record Outcome(long acknowledged, long consumed, long lost, long duplicated, String firstFailure) {}

    private final String bootstrap;
    private final Map<TopicPartition, Map<Long, String>> acknowledged = new ConcurrentHashMap<>();
    private final AtomicLong acknowledgedCount = new AtomicLong();
    private final AtomicReference<Exception> producerFailure = new AtomicReference<>();
    private final KafkaProducer<String, String> producer;
    private final Thread writer;
    private volatile boolean stopping;

    WellBehavedClient(final String bootstrap) throws Exception {
        this.bootstrap = bootstrap;
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1)))
                    .all()
                    .get();
        }
        final Properties props = new Properties();
        props.put("bootstrap.servers", bootstrap);
        props.put("acks", "all");
        props.put("enable.idempotence", "true");
        props.put("linger.ms", "1");
        props.put("delivery.timeout.ms", "120000");
        props.put("key.serializer", StringSerializer.class.getName());
        props.put("value.serializer", StringSerializer.class.getName());
        this.producer = new KafkaProducer<>(props);
        this.writer = Thread.ofPlatform().name("fuzz-well-behaved-producer").start(this::produce);
    }

    private void produce() {
        long next = 0;
        while (!stopping) {
            final String value = "value-" + next++;
            producer.send(new ProducerRecord<>(TOPIC, null, value), (metadata, exception) -> {
                if (exception != null) {
                    producerFailure.compareAndSet(null, exception);
                    return;
                }
                acknowledged
                        .computeIfAbsent(
                                new TopicPartition(metadata.topic(), metadata.partition()),
                                p -> new ConcurrentHashMap<>())
                        .put(metadata.offset(), value);
                acknowledgedCount.incrementAndGet();
            });
            if (next % 100 == 0) {
                producer.flush();
                try {
                    Thread.sleep(10); // a steady client, not a load generator: the fuzz is the load
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
        producer.flush();
    }

    long acknowledged() {
        return acknowledgedCount.get();
    }

    /** Stops producing and reads the topic back from the start, comparing it with every acknowledgement. */
    Outcome stopAndCheck(final Duration readTimeout) throws InterruptedException {
        stopping = true;
        writer.join();
        producer.close();
        final Properties props = new Properties();
        props.put("bootstrap.servers", bootstrap);
        props.put("group.id", "isthmus-fuzz-well-behaved-check");
        props.put("auto.offset.reset", "earliest");
        props.put("enable.auto.commit", "false");
        props.put("key.deserializer", StringDeserializer.class.getName());
        props.put("value.deserializer", StringDeserializer.class.getName());
        final Map<TopicPartition, Map<Long, String>> consumed = new HashMap<>();
        final Set<String> seenValues = new HashSet<>();
        long duplicated = 0;
        long consumedCount = 0;
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            final List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                partitions.add(new TopicPartition(TOPIC, p));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            final Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            final long deadline = System.nanoTime() + readTimeout.toNanos();
            while (System.nanoTime() < deadline && !reachedEnds(consumer, ends)) {
                for (final ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    consumed.computeIfAbsent(
                                    new TopicPartition(record.topic(), record.partition()), p -> new HashMap<>())
                            .put(record.offset(), record.value());
                    consumedCount++;
                    if (!seenValues.add(record.value())) {
                        duplicated++;
                    }
                }
            }
        }
        long lost = 0;
        String firstFailure = producerFailure.get() == null ? null : "producer: " + producerFailure.get();
        for (final Map.Entry<TopicPartition, Map<Long, String>> partition : acknowledged.entrySet()) {
            final Map<Long, String> read = consumed.getOrDefault(partition.getKey(), Map.of());
            for (final Map.Entry<Long, String> ack : partition.getValue().entrySet()) {
                if (!ack.getValue().equals(read.get(ack.getKey()))) {
                    lost++;
                    if (firstFailure == null) {
                        firstFailure = "acknowledged " + ack.getValue() + " at " + partition.getKey() + "@"
                                + ack.getKey() + ", read back " + read.get(ack.getKey());
                    }
                }
            }
        }
        return new Outcome(acknowledgedCount.get(), consumedCount, lost, duplicated, firstFailure);
    }

    private static boolean reachedEnds(
            final KafkaConsumer<String, String> consumer, final Map<TopicPartition, Long> ends) {
        for (final Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
            if (consumer.position(end.getKey()) < end.getValue()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() throws InterruptedException {
        if (!stopping) {
            stopping = true;
            writer.join();
            producer.close();
        }
    }
}
