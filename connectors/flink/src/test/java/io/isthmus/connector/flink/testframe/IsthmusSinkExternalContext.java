package io.isthmus.connector.flink.testframe;

import io.isthmus.client.admin.IsthmusAdmin;
import io.isthmus.client.consumer.ConsumedRecord;
import io.isthmus.client.consumer.ConsumerBatch;
import io.isthmus.client.consumer.IsthmusConsumer;
import io.isthmus.connector.flink.sink.IsthmusRecordSerializationSchema;
import io.isthmus.connector.flink.sink.IsthmusSink;
import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.testframe.external.ExternalSystemDataReader;
import org.apache.flink.connector.testframe.external.sink.DataStreamSinkV2ExternalContext;
import org.apache.flink.connector.testframe.external.sink.TestingSinkSettings;
import org.apache.flink.streaming.api.CheckpointingMode;
import org.apache.kafka.common.TopicPartition;

/**
 * The sink's side of Flink's {@code SinkTestSuiteBase}: one topic of two partitions per test case, written with the
 * at-least-once sink, and read back with the isthmus consumer from the beginning.
 */
final class IsthmusSinkExternalContext implements DataStreamSinkV2ExternalContext<String> {
    private static final int PARTITIONS = 2;

    private final String bootstrapServers;
    private final String topic = "sink-suite-" + UUID.randomUUID().toString().substring(0, 8);
    private final IsthmusAdmin admin;
    private final List<Reader> readers = new ArrayList<>();

    IsthmusSinkExternalContext(final String bootstrapServers) {
        this.bootstrapServers = bootstrapServers;
        this.admin = new IsthmusAdmin(bootstrapServers);
        admin.createTopic(topic, PARTITIONS, (short) 1);
    }

    @Override
    public Sink<String> createSink(final TestingSinkSettings settings) {
        final boolean exactlyOnce = settings.getCheckpointingMode() == CheckpointingMode.EXACTLY_ONCE;
        return IsthmusSink.<String>builder()
                .setBootstrapServers(bootstrapServers)
                .setDeliveryGuarantee(exactlyOnce ? DeliveryGuarantee.EXACTLY_ONCE : DeliveryGuarantee.AT_LEAST_ONCE)
                .setTransactionalIdPrefix(topic)
                .setRecordSerializer(IsthmusRecordSerializationSchema.<String>builder()
                        .setTopic(topic)
                        .setValueSerializationSchema(new SimpleStringSchema())
                        .build())
                .build();
    }

    @Override
    public ExternalSystemDataReader<String> createSinkDataReader(final TestingSinkSettings settings) {
        final Reader reader = new Reader(
                settings.getCheckpointingMode() == CheckpointingMode.EXACTLY_ONCE
                        ? "read_committed"
                        : "read_uncommitted");
        readers.add(reader);
        return reader;
    }

    @Override
    public List<String> generateTestData(final TestingSinkSettings settings, final long seed) {
        return RandomStrings.generate("sink", seed);
    }

    @Override
    public TypeInformation<String> getProducedType() {
        return Types.STRING;
    }

    @Override
    public List<URL> getConnectorJarPaths() {
        return List.of();
    }

    @Override
    public void close() {
        for (final Reader reader : readers) {
            reader.close();
        }
        admin.deleteTopics(List.of(topic));
        admin.close();
    }

    @Override
    public String toString() {
        return "isthmus sink";
    }

    /** Reads the topic from the beginning with the isthmus consumer. */
    private final class Reader implements ExternalSystemDataReader<String> {
        private final IsthmusConsumer consumer;

        Reader(final String isolation) {
            consumer = new IsthmusConsumer(
                    Map.of("bootstrap.servers", bootstrapServers, "transport", "tcp", "isolation.level", isolation));
            final List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                partitions.add(new TopicPartition(topic, p));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
        }

        @Override
        public List<String> poll(final Duration timeout) {
            final List<String> values = new ArrayList<>();
            try (ConsumerBatch batch = consumer.poll(timeout)) {
                for (final ConsumedRecord record : batch) {
                    values.add(record.valueAsString());
                }
            }
            return values;
        }

        @Override
        public void close() {
            consumer.close();
        }
    }
}
