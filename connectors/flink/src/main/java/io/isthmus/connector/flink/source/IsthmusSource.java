package io.isthmus.connector.flink.source;

import io.isthmus.client.admin.IsthmusAdmin;
import io.isthmus.client.consumer.ConsumerConfig;
import io.isthmus.client.consumer.IsthmusConsumer;
import io.isthmus.client.security.SecuritySettings;
import io.isthmus.connector.flink.source.enumerator.IsthmusSourceEnumState;
import io.isthmus.connector.flink.source.enumerator.IsthmusSourceEnumStateSerializer;
import io.isthmus.connector.flink.source.enumerator.IsthmusSourceEnumerator;
import io.isthmus.connector.flink.source.enumerator.initializer.OffsetsInitializer;
import io.isthmus.connector.flink.source.enumerator.subscriber.IsthmusSubscriber;
import io.isthmus.connector.flink.source.reader.IsthmusSourceReaders;
import io.isthmus.connector.flink.source.reader.deserializer.IsthmusRecordDeserializationSchema;
import io.isthmus.connector.flink.source.split.IsthmusPartitionSplit;
import io.isthmus.connector.flink.source.split.IsthmusPartitionSplitSerializer;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.util.UserCodeClassLoader;

/**
 * A Flink source (FLIP-27) reading topics of any Kafka-protocol broker through the isthmus consumer, over TCP, or over
 * RDMA from an isthmus broker ({@code transport}). Records reach the {@link IsthmusRecordDeserializationSchema} in
 * the buffer they arrived in: no copy between the broker's log and the operator. Build one with {@link #builder()},
 * the twin of {@code KafkaSource.builder()}.
 *
 * <p>Splits are partitions ({@link IsthmusPartitionSplit}); the enumerator discovers them and assigns each to a fixed
 * reader ({@link IsthmusSourceEnumerator}); each reader runs one consumer on its split fetcher thread. Offsets live in
 * Flink's checkpoints and are committed to the group when a checkpoint completes.
 */
public final class IsthmusSource<OUT>
        implements Source<OUT, IsthmusPartitionSplit, IsthmusSourceEnumState>, ResultTypeQueryable<OUT> {
    private static final long serialVersionUID = 1L;

    private final IsthmusSubscriber subscriber;
    private final OffsetsInitializer startingOffsets;
    private final OffsetsInitializer stoppingOffsets;
    private final Boundedness boundedness;
    private final IsthmusRecordDeserializationSchema<OUT> deserializer;
    private final HashMap<String, String> consumerSettings;
    private final String clientIdPrefix;
    private final long discoveryIntervalMs;
    private final boolean commitOffsetsOnCheckpoint;
    private final long pollTimeoutMs;

    IsthmusSource(
            final IsthmusSubscriber subscriber,
            final OffsetsInitializer startingOffsets,
            final OffsetsInitializer stoppingOffsets,
            final Boundedness boundedness,
            final IsthmusRecordDeserializationSchema<OUT> deserializer,
            final HashMap<String, String> consumerSettings,
            final String clientIdPrefix,
            final long discoveryIntervalMs,
            final boolean commitOffsetsOnCheckpoint,
            final long pollTimeoutMs) {
        this.subscriber = subscriber;
        this.startingOffsets = startingOffsets;
        this.stoppingOffsets = stoppingOffsets;
        this.boundedness = boundedness;
        this.deserializer = deserializer;
        this.consumerSettings = consumerSettings;
        this.clientIdPrefix = clientIdPrefix;
        this.discoveryIntervalMs = discoveryIntervalMs;
        this.commitOffsetsOnCheckpoint = commitOffsetsOnCheckpoint;
        this.pollTimeoutMs = pollTimeoutMs;
    }

    public static <OUT> IsthmusSourceBuilder<OUT> builder() {
        return new IsthmusSourceBuilder<>();
    }

    @Override
    public Boundedness getBoundedness() {
        return boundedness;
    }

    @Override
    public SourceReader<OUT, IsthmusPartitionSplit> createReader(final SourceReaderContext context) throws Exception {
        deserializer.open(new DeserializationSchema.InitializationContext() {
            @Override
            public MetricGroup getMetricGroup() {
                return context.metricGroup().addGroup("deserializer");
            }

            @Override
            public UserCodeClassLoader getUserCodeClassLoader() {
                return context.getUserCodeClassLoader();
            }
        });
        final Map<String, Object> settings = new HashMap<>(consumerSettings);
        settings.put(ConsumerConfig.CLIENT_ID, clientIdPrefix + "-" + context.getIndexOfSubtask());
        return IsthmusSourceReaders.create(
                context,
                () -> new IsthmusConsumer(settings),
                deserializer,
                Duration.ofMillis(pollTimeoutMs),
                commitOffsetsOnCheckpoint);
    }

    @Override
    public SplitEnumerator<IsthmusPartitionSplit, IsthmusSourceEnumState> createEnumerator(
            final SplitEnumeratorContext<IsthmusPartitionSplit> context) {
        return restoreEnumerator(context, null);
    }

    @Override
    public SplitEnumerator<IsthmusPartitionSplit, IsthmusSourceEnumState> restoreEnumerator(
            final SplitEnumeratorContext<IsthmusPartitionSplit> context, final IsthmusSourceEnumState checkpoint) {
        final String bootstrap = consumerSettings.get(ConsumerConfig.BOOTSTRAP_SERVERS);
        final SecuritySettings security = SecuritySettings.of(consumerSettings);
        return new IsthmusSourceEnumerator(
                context,
                subscriber,
                startingOffsets,
                stoppingOffsets,
                boundedness,
                discoveryIntervalMs,
                consumerSettings.get(ConsumerConfig.GROUP_ID),
                () -> new IsthmusAdmin(bootstrap, Duration.ofSeconds(30), security),
                checkpoint);
    }

    @Override
    public SimpleVersionedSerializer<IsthmusPartitionSplit> getSplitSerializer() {
        return new IsthmusPartitionSplitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<IsthmusSourceEnumState> getEnumeratorCheckpointSerializer() {
        return new IsthmusSourceEnumStateSerializer();
    }

    @Override
    public TypeInformation<OUT> getProducedType() {
        return deserializer.getProducedType();
    }

    /** The consumer settings each reader's consumer gets (client id aside), for tests and diagnostics. */
    Map<String, String> consumerSettings() {
        return Map.copyOf(consumerSettings);
    }
}
