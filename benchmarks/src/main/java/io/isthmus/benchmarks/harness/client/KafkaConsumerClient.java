package io.isthmus.benchmarks.harness.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * kafka-clients' {@link KafkaConsumer} with {@code assign} (no group), every partition from the beginning, default
 * fetch sizes, CRC checks on (the default), the settings' {@code isolation.level} (read_committed: only records of
 * committed transactions, up to the last stable offset).
 */
final class KafkaConsumerClient implements ConsumerClient {
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final List<TopicPartition> partitions = new ArrayList<>();
    private Metric fetchTotal;

    KafkaConsumerClient(final ClientSettings settings, final String clientId) {
        final Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrap());
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, settings.fetchMaxWaitMs());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, settings.isolation());
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        this.consumer = new KafkaConsumer<>(props);
        for (int p = 0; p < settings.partitions(); p++) {
            partitions.add(new TopicPartition(settings.topic(), p));
        }
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
    }

    @Override
    public void rewind() {
        consumer.seekToBeginning(partitions);
    }

    @Override
    public int poll(final Duration timeout, final RecordSink sink) {
        final ConsumerRecords<byte[], byte[]> records = consumer.poll(timeout);
        for (final ConsumerRecord<byte[], byte[]> record : records) {
            final byte[] value = record.value();
            sink.onRecord(value.length, value.length >= Long.BYTES ? firstLong(value) : 0L);
        }
        return records.count();
    }

    private static long firstLong(final byte[] value) {
        long result = 0;
        for (int i = 0; i < Long.BYTES; i++) {
            result = (result << 8) | (value[i] & 0xFF);
        }
        return result;
    }

    @Override
    public long fetchRequests() {
        if (fetchTotal == null) {
            for (final Map.Entry<MetricName, ? extends Metric> entry :
                    consumer.metrics().entrySet()) {
                final MetricName name = entry.getKey();
                if (name.name().equals("fetch-total") && name.group().equals("consumer-fetch-manager-metrics")) {
                    fetchTotal = entry.getValue();
                }
            }
            if (fetchTotal == null) {
                return 0;
            }
        }
        return (long) ((Number) fetchTotal.metricValue()).doubleValue();
    }

    @Override
    public boolean fetching() {
        return fetchRequests() >= 1;
    }

    @Override
    public void close() {
        consumer.close();
    }
}
