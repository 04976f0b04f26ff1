package io.isthmus.client.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.isthmus.client.consumer.ConsumedRecord;
import io.isthmus.client.consumer.ConsumerBatch;
import io.isthmus.client.consumer.IsthmusConsumer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsOptions;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/** Topics on a real Apache Kafka broker for the client's tests, and reading them back with the isthmus consumer. */
public final class KafkaTopics {
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

    private KafkaTopics() {}

    /**
     * Creates a topic with kafka-clients' Admin and waits until Kafka serves every partition: Kafka answers CreateTopics
     * before its replica manager serves the new partitions, and ListOffsets succeeding means Produce will too.
     */
    public static void create(final String bootstrap, final String topic, final int partitions) {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
                    .all()
                    .get();
            final Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int p = 0; p < partitions; p++) {
                latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
            }
            final long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
            while (true) {
                try {
                    admin.listOffsets(latest).all().get();
                    return;
                } catch (final ExecutionException notYet) {
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("Kafka did not serve " + topic + " within 30 s", notYet);
                    }
                }
            }
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } catch (final ExecutionException e) {
            throw new AssertionError("CreateTopics failed: topic=" + topic, e.getCause());
        }
    }

    /**
     * A group's committed offset of one partition once no transaction's offsets are pending for it, as kafka-clients'
     * Admin reads it with {@code requireStable}: a committed transaction's offsets count once the coordinator has
     * written its markers, a moment after EndTxn returned, and an aborted one's are dropped then. Kafka answers
     * UNSTABLE_OFFSET_COMMIT meanwhile, which Admin leaves out of its answer: asked again until it is there.
     */
    public static long stableCommitted(final String bootstrap, final String groupId, final TopicPartition partition) {
        final long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
        Long offset;
        while ((offset = committed(bootstrap, groupId, partition, true)) == null) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no stable committed offset within 30 s: group=" + groupId + ", " + partition);
            }
        }
        return offset;
    }

    /** A group's committed offset of one partition right now, pending transactional offsets left out; null if none. */
    public static Long committed(final String bootstrap, final String groupId, final TopicPartition partition) {
        return committed(bootstrap, groupId, partition, false);
    }

    private static Long committed(
            final String bootstrap, final String groupId, final TopicPartition partition, final boolean requireStable) {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            final OffsetAndMetadata offset = admin.listConsumerGroupOffsets(
                            Map.of(groupId, new ListConsumerGroupOffsetsSpec().topicPartitions(List.of(partition))),
                            new ListConsumerGroupOffsetsOptions().requireStable(requireStable))
                    .partitionsToOffsetAndMetadata(groupId)
                    .get()
                    .get(partition);
            return offset == null ? null : offset.offset();
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } catch (final ExecutionException e) {
            throw new AssertionError("ListConsumerGroupOffsets failed: group=" + groupId, e.getCause());
        }
    }

    /** Settings of an isthmus consumer over TCP with {@code isolation.level}. */
    public static Map<String, Object> consumerSettings(final String bootstrap, final String isolationLevel) {
        final Map<String, Object> settings = new HashMap<>();
        settings.put("bootstrap.servers", bootstrap);
        settings.put("transport", "tcp");
        settings.put("isolation.level", isolationLevel);
        settings.put("fetch.max.wait.ms", 100);
        return settings;
    }

    /**
     * Every record value of the topic from the beginning to the end offsets the consumer itself finds (the last stable
     * offset with {@code read_committed}), per partition in offset order. Reads with {@code poll(Duration)} (the whole
     * fetch handed out at once) or with {@code poll(handler)} (record by record), and checks that the consumer's
     * position reaches each end offset: it moves past markers and skipped batches, so a poll loop never stalls.
     */
    public static Map<Integer, List<String>> read(
            final String bootstrap,
            final String topic,
            final int partitions,
            final String isolationLevel,
            final boolean recordByRecord) {
        return read(bootstrap, topic, partitions, isolationLevel, recordByRecord, Map.of());
    }

    /**
     * As {@link #read(String, String, int, String, boolean)}, with more consumer settings. Waits first until every
     * transaction of the topic has ended, markers included (see {@link #awaitTransactionsEnded}).
     */
    public static Map<Integer, List<String>> read(
            final String bootstrap,
            final String topic,
            final int partitions,
            final String isolationLevel,
            final boolean recordByRecord,
            final Map<String, ?> moreSettings) {
        awaitTransactionsEnded(bootstrap, topic, partitions);
        return readToEnd(bootstrap, topic, partitions, isolationLevel, recordByRecord, moreSettings);
    }

    /**
     * Reads a one-partition topic while a transaction in it is still open, both ways: a {@code read_committed} consumer
     * stops at the open transaction's first offset.
     */
    public static List<String> readWithTransactionOpen(
            final String bootstrap, final String topic, final String isolationLevel) {
        final List<String> whole =
                readToEnd(bootstrap, topic, 1, isolationLevel, false, Map.of()).get(0);
        final List<String> byRecord =
                readToEnd(bootstrap, topic, 1, isolationLevel, true, Map.of()).get(0);
        assertThat(byRecord).as("record by record as in whole fetches").isEqualTo(whole);
        return whole;
    }

    /**
     * Waits until no transaction of the topic is open any more: the last stable offset has caught up with the high
     * watermark. EndTxn returns once the coordinator has decided; it writes the markers a moment later, and until then
     * a committed transaction's records are not readable yet.
     */
    public static void awaitTransactionsEnded(final String bootstrap, final String topic, final int partitions) {
        final Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            final long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
            while (true) {
                final Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> stable = admin.listOffsets(
                                latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                        .all()
                        .get();
                final Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> end = admin.listOffsets(
                                latest, new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED))
                        .all()
                        .get();
                boolean ended = true;
                for (final TopicPartition tp : latest.keySet()) {
                    ended &= stable.get(tp).offset() == end.get(tp).offset();
                }
                if (ended) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(
                            "a transaction of " + topic + " still open after 30 s: stable=" + stable + ", end=" + end);
                }
                Thread.sleep(10);
            }
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } catch (final ExecutionException e) {
            throw new AssertionError("ListOffsets failed: topic=" + topic, e.getCause());
        }
    }

    private static Map<Integer, List<String>> readToEnd(
            final String bootstrap,
            final String topic,
            final int partitions,
            final String isolationLevel,
            final boolean recordByRecord,
            final Map<String, ?> moreSettings) {
        final Map<Integer, List<String>> values = new TreeMap<>();
        final List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            tps.add(new TopicPartition(topic, p));
            values.put(p, new ArrayList<>());
        }
        final Map<String, Object> settings = consumerSettings(bootstrap, isolationLevel);
        settings.putAll(moreSettings);
        try (IsthmusConsumer consumer = new IsthmusConsumer(settings)) {
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            final Map<TopicPartition, Long> ends = consumer.endOffsets(tps);
            final long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
            while (!reached(consumer, ends)) {
                if (System.nanoTime() > deadline) {
                    final Map<TopicPartition, Long> positions = new HashMap<>();
                    tps.forEach(tp -> positions.put(tp, consumer.position(tp)));
                    throw new AssertionError("positions " + positions + " did not reach the end offsets " + ends
                            + " within 30 s; read so far: " + values);
                }
                if (recordByRecord) {
                    consumer.poll(
                            record -> values.get(record.partition()).add(record.valueAsString()),
                            1000,
                            Duration.ofMillis(100));
                } else {
                    try (ConsumerBatch batch = consumer.poll(Duration.ofMillis(100))) {
                        for (final ConsumedRecord record : batch) {
                            values.get(record.partition()).add(record.valueAsString());
                        }
                    }
                }
            }
            for (final TopicPartition tp : tps) {
                assertThat(consumer.position(tp))
                        .as("position of %s at its end offset", tp)
                        .isEqualTo(ends.get(tp));
            }
        }
        return values;
    }

    /** {@link #read(String, String, int, String, boolean)} of a one-partition topic, both ways, which must agree. */
    public static List<String> read(final String bootstrap, final String topic, final String isolationLevel) {
        final List<String> whole =
                read(bootstrap, topic, 1, isolationLevel, false).get(0);
        final List<String> byRecord =
                read(bootstrap, topic, 1, isolationLevel, true).get(0);
        assertThat(byRecord).as("record by record as in whole fetches").isEqualTo(whole);
        return whole;
    }

    private static boolean reached(final IsthmusConsumer consumer, final Map<TopicPartition, Long> ends) {
        for (final Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
            if (consumer.position(end.getKey()) < end.getValue()) {
                return false;
            }
        }
        return true;
    }
}
