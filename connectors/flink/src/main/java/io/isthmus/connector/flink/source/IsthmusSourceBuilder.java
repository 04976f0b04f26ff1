package io.isthmus.connector.flink.source;

import io.isthmus.client.config.ConfigReader;
import io.isthmus.client.config.KafkaSettings;
import io.isthmus.client.consumer.ConsumerConfig;
import io.isthmus.connector.flink.source.enumerator.initializer.OffsetsInitializer;
import io.isthmus.connector.flink.source.enumerator.subscriber.IsthmusSubscriber;
import io.isthmus.connector.flink.source.reader.deserializer.IsthmusRecordDeserializationSchema;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds an {@link IsthmusSource}, method for method as Kafka's {@code KafkaSourceBuilder}: bootstrap servers, one
 * subscription, a deserializer, and optionally start and stop offsets, a group id, a client id prefix and
 * properties. A job written for {@code KafkaSource} changes the class names and keeps the rest.
 *
 * <pre>{@code
 * IsthmusSource<String> source = IsthmusSource.<String>builder()
 *         .setBootstrapServers("localhost:9092")
 *         .setTopics("input")
 *         .setGroupId("my-job")
 *         .setStartingOffsets(OffsetsInitializer.earliest())
 *         .setValueOnlyDeserializer(new SimpleStringSchema())
 *         .build();
 * }</pre>
 */
public final class IsthmusSourceBuilder<OUT> {
    private static final Logger LOG = LoggerFactory.getLogger(IsthmusSourceBuilder.class);

    private IsthmusSubscriber subscriber;
    private OffsetsInitializer startingOffsets = OffsetsInitializer.earliest();
    private OffsetsInitializer stoppingOffsets;
    private Boundedness boundedness = Boundedness.CONTINUOUS_UNBOUNDED;
    private IsthmusRecordDeserializationSchema<OUT> deserializer;
    private final Properties properties = new Properties();

    IsthmusSourceBuilder() {}

    public IsthmusSourceBuilder<OUT> setBootstrapServers(final String bootstrapServers) {
        return setProperty(ConsumerConfig.BOOTSTRAP_SERVERS, bootstrapServers);
    }

    public IsthmusSourceBuilder<OUT> setGroupId(final String groupId) {
        return setProperty(ConsumerConfig.GROUP_ID, groupId);
    }

    /** Reads every partition of these topics. */
    public IsthmusSourceBuilder<OUT> setTopics(final List<String> topics) {
        ensureSubscriberIsNull("topics");
        subscriber = IsthmusSubscriber.topics(topics);
        return this;
    }

    /** Reads every partition of these topics. */
    public IsthmusSourceBuilder<OUT> setTopics(final String... topics) {
        return setTopics(Arrays.asList(topics));
    }

    /** Reads every partition of every topic whose name matches, including topics created while the job runs. */
    public IsthmusSourceBuilder<OUT> setTopicPattern(final Pattern topicPattern) {
        ensureSubscriberIsNull("topic pattern");
        subscriber = IsthmusSubscriber.pattern(topicPattern);
        return this;
    }

    /** Reads exactly these partitions. */
    public IsthmusSourceBuilder<OUT> setPartitions(final Set<TopicPartition> partitions) {
        ensureSubscriberIsNull("partitions");
        subscriber = IsthmusSubscriber.partitions(partitions);
        return this;
    }

    /** Where reading starts; default {@link OffsetsInitializer#earliest()}. */
    public IsthmusSourceBuilder<OUT> setStartingOffsets(final OffsetsInitializer startingOffsetsInitializer) {
        this.startingOffsets = Objects.requireNonNull(startingOffsetsInitializer, "startingOffsetsInitializer");
        return this;
    }

    /**
     * A streaming source whose splits stop at these offsets: the job does not end by itself (Kafka's {@code
     * setUnbounded}).
     */
    public IsthmusSourceBuilder<OUT> setUnbounded(final OffsetsInitializer stoppingOffsetsInitializer) {
        this.boundedness = Boundedness.CONTINUOUS_UNBOUNDED;
        this.stoppingOffsets = Objects.requireNonNull(stoppingOffsetsInitializer, "stoppingOffsetsInitializer");
        return this;
    }

    /** A bounded source: splits stop at these offsets, and the job ends when all are read. No partition discovery. */
    public IsthmusSourceBuilder<OUT> setBounded(final OffsetsInitializer stoppingOffsetsInitializer) {
        this.boundedness = Boundedness.BOUNDED;
        this.stoppingOffsets = Objects.requireNonNull(stoppingOffsetsInitializer, "stoppingOffsetsInitializer");
        return this;
    }

    /** The zero-copy deserializer: it reads each record in place. */
    public IsthmusSourceBuilder<OUT> setDeserializer(final IsthmusRecordDeserializationSchema<OUT> recordDeserializer) {
        this.deserializer = Objects.requireNonNull(recordDeserializer, "recordDeserializer");
        return this;
    }

    /** Values only, through a Flink {@link DeserializationSchema} (one copy of each value). */
    public IsthmusSourceBuilder<OUT> setValueOnlyDeserializer(final DeserializationSchema<OUT> deserializationSchema) {
        return setDeserializer(IsthmusRecordDeserializationSchema.valueOnly(deserializationSchema));
    }

    public IsthmusSourceBuilder<OUT> setClientIdPrefix(final String prefix) {
        return setProperty(IsthmusSourceOptions.CLIENT_ID_PREFIX, prefix);
    }

    /** A source option ({@link IsthmusSourceOptions}) or a consumer setting (isthmus or Kafka name). */
    public IsthmusSourceBuilder<OUT> setProperty(final String key, final String value) {
        properties.setProperty(key, value);
        return this;
    }

    /** Source options and consumer settings, as {@link #setProperty}. */
    public IsthmusSourceBuilder<OUT> setProperties(final Properties props) {
        for (final String key : props.stringPropertyNames()) {
            properties.setProperty(key, props.getProperty(key));
        }
        return this;
    }

    public IsthmusSource<OUT> build() {
        if (subscriber == null) {
            throw new IllegalStateException("no subscription: call one of setTopics, setTopicPattern or setPartitions");
        }
        if (deserializer == null) {
            throw new IllegalStateException("no deserializer: call setDeserializer or setValueOnlyDeserializer");
        }
        final Map<String, Object> options = new HashMap<>();
        final Map<String, Object> consumerSide = new HashMap<>();
        for (final String key : properties.stringPropertyNames()) {
            if (IsthmusSourceOptions.NAMES.contains(key)) {
                options.put(key, properties.getProperty(key));
            } else {
                consumerSide.put(key, properties.getProperty(key));
            }
        }
        final Map<String, Object> consumer =
                new HashMap<>(KafkaSettings.forConsumer(consumerSide).settings());
        final String bootstrap = (String) consumer.get(ConsumerConfig.BOOTSTRAP_SERVERS);
        if (bootstrap == null || bootstrap.isBlank()) {
            throw new IllegalStateException("no bootstrap servers: call setBootstrapServers");
        }
        final String groupId = (String) consumer.get(ConsumerConfig.GROUP_ID);
        // What Kafka's builder enforces: the source, not the consumer, owns positions and commits.
        consumer.put(ConsumerConfig.ENABLE_AUTO_COMMIT, "false");
        consumer.put(
                ConsumerConfig.AUTO_OFFSET_RESET,
                startingOffsets.getAutoOffsetResetStrategy().name().toLowerCase(java.util.Locale.ROOT));
        consumer.remove(ConsumerConfig.CLIENT_ID);
        new ConsumerConfig(consumer); // refuses a bad value now, not in a task manager later

        final ConfigReader sourceOptions = new ConfigReader(options, IsthmusSourceOptions.NAMES, "source");
        boolean commitOnCheckpoint = sourceOptions.bool(
                IsthmusSourceOptions.COMMIT_OFFSETS_ON_CHECKPOINT,
                IsthmusSourceOptions.DEFAULT_COMMIT_OFFSETS_ON_CHECKPOINT);
        if (commitOnCheckpoint && groupId == null) {
            // As Kafka's: without a group there is nothing to commit to. Worth a warning only if asked for.
            if (options.containsKey(IsthmusSourceOptions.COMMIT_OFFSETS_ON_CHECKPOINT)) {
                LOG.warn(
                        "{} is true but no group.id is set: offsets are not committed",
                        IsthmusSourceOptions.COMMIT_OFFSETS_ON_CHECKPOINT);
            }
            commitOnCheckpoint = false;
        }
        // 0 or less turns discovery off, as in Kafka's source.
        long discoveryIntervalMs = sourceOptions.longValue(
                IsthmusSourceOptions.PARTITION_DISCOVERY_INTERVAL_MS,
                IsthmusSourceOptions.DEFAULT_PARTITION_DISCOVERY_INTERVAL_MS,
                Long.MIN_VALUE);
        if (boundedness == Boundedness.BOUNDED) {
            // As Kafka's: a bounded source reads the partitions that exist when it starts.
            discoveryIntervalMs = -1;
        }
        final long pollTimeoutMs = sourceOptions.longValue(
                IsthmusSourceOptions.POLL_TIMEOUT_MS, IsthmusSourceOptions.DEFAULT_POLL_TIMEOUT_MS, 1);
        String clientIdPrefix = sourceOptions.string(IsthmusSourceOptions.CLIENT_ID_PREFIX, null);
        if (clientIdPrefix == null) {
            clientIdPrefix = groupId != null ? groupId : "IsthmusSource-" + UUID.randomUUID();
        }
        final HashMap<String, String> consumerSettings = new HashMap<>();
        consumer.forEach((k, v) -> consumerSettings.put(k, String.valueOf(v)));
        return new IsthmusSource<>(
                subscriber,
                startingOffsets,
                stoppingOffsets,
                boundedness,
                deserializer,
                consumerSettings,
                clientIdPrefix,
                discoveryIntervalMs,
                commitOnCheckpoint,
                pollTimeoutMs);
    }

    private void ensureSubscriberIsNull(final String attempted) {
        if (subscriber != null) {
            throw new IllegalStateException("cannot subscribe to " + attempted + ": the source already reads "
                    + subscriber + "; a source has exactly one subscription");
        }
    }
}
