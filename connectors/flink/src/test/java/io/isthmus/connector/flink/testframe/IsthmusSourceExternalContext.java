package io.isthmus.connector.flink.testframe;

import io.isthmus.client.admin.IsthmusAdmin;
import io.isthmus.connector.flink.source.IsthmusSource;
import io.isthmus.connector.flink.source.IsthmusSourceBuilder;
import io.isthmus.connector.flink.source.IsthmusSourceOptions;
import io.isthmus.connector.flink.source.enumerator.initializer.OffsetsInitializer;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.regex.Pattern;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.connector.testframe.external.ExternalSystemSplitDataWriter;
import org.apache.flink.connector.testframe.external.source.DataStreamSourceExternalContext;
import org.apache.flink.connector.testframe.external.source.TestingSourceSettings;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The source's side of Flink's {@code SourceTestSuiteBase}: each split the suite asks for is a topic of its own, and
 * the source subscribes to them with a pattern, so splits the suite adds while a job runs are found by partition
 * discovery (every 100 ms here).
 */
final class IsthmusSourceExternalContext implements DataStreamSourceExternalContext<String> {
    private final String bootstrapServers;
    private final String topicPrefix = "suite-" + UUID.randomUUID().toString().substring(0, 8);
    private final IsthmusAdmin admin;
    private final List<String> topics = new ArrayList<>();
    private final List<SplitWriter> writers = new ArrayList<>();

    IsthmusSourceExternalContext(final String bootstrapServers) {
        this.bootstrapServers = bootstrapServers;
        this.admin = new IsthmusAdmin(bootstrapServers);
    }

    @Override
    public Source<String, ?, ?> createSource(final TestingSourceSettings settings) {
        final IsthmusSourceBuilder<String> builder = IsthmusSource.<String>builder()
                .setBootstrapServers(bootstrapServers)
                .setTopicPattern(Pattern.compile(Pattern.quote(topicPrefix) + "-\\d+"))
                .setGroupId(topicPrefix)
                .setProperty(IsthmusSourceOptions.PARTITION_DISCOVERY_INTERVAL_MS, "100")
                .setValueOnlyDeserializer(new SimpleStringSchema());
        if (settings.getBoundedness() == Boundedness.BOUNDED) {
            builder.setBounded(OffsetsInitializer.latest());
        }
        return builder.build();
    }

    @Override
    public ExternalSystemSplitDataWriter<String> createSourceSplitDataWriter(final TestingSourceSettings settings) {
        final String topic = topicPrefix + "-" + topics.size();
        admin.createTopic(topic, 1, (short) 1);
        topics.add(topic);
        final SplitWriter writer = new SplitWriter(topic);
        writers.add(writer);
        return writer;
    }

    @Override
    public List<String> generateTestData(final TestingSourceSettings settings, final int splitIndex, final long seed) {
        return RandomStrings.generate("split" + splitIndex, seed);
    }

    @Override
    public TypeInformation<String> getProducedType() {
        return Types.STRING;
    }

    @Override
    public List<URL> getConnectorJarPaths() {
        // The MiniCluster runs in the test JVM, with the connector on its class path.
        return List.of();
    }

    @Override
    public void close() {
        for (final SplitWriter writer : writers) {
            writer.close();
        }
        if (!topics.isEmpty()) {
            admin.deleteTopics(topics);
        }
        admin.close();
    }

    @Override
    public String toString() {
        return "isthmus source, a topic per split";
    }

    /** Writes one split's records, acks=all, and waits for every acknowledgement. */
    private final class SplitWriter implements ExternalSystemSplitDataWriter<String> {
        private final String topic;
        private final KafkaProducer<byte[], byte[]> producer;

        SplitWriter(final String topic) {
            this.topic = topic;
            final Properties props = new Properties();
            props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
            props.put(ProducerConfig.ACKS_CONFIG, "all");
            this.producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
        }

        @Override
        public void writeRecords(final List<String> records) {
            final List<Future<RecordMetadata>> acks = new ArrayList<>(records.size());
            for (final String record : records) {
                acks.add(producer.send(new ProducerRecord<>(topic, 0, null, record.getBytes(StandardCharsets.UTF_8))));
            }
            producer.flush();
            try {
                for (final Future<RecordMetadata> ack : acks) {
                    ack.get();
                }
            } catch (final Exception e) {
                throw new IllegalStateException("writing a split's records failed: topic=" + topic, e);
            }
        }

        @Override
        public void close() {
            producer.close();
        }
    }
}
