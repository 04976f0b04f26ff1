package io.isthmus.connector.flink.sink;

import io.isthmus.client.producer.IsthmusProducer;
import io.isthmus.client.producer.ProducerConfig;
import io.isthmus.client.producer.TransactionHandle;
import java.io.IOException;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A Flink sink (Sink V2) writing to topics of any Kafka-protocol broker through the isthmus producer, over TCP, or
 * over RDMA to an isthmus broker ({@code transport}). Build one with {@link #builder()}, the twin of {@code
 * KafkaSink.builder()}. Delivery guarantees, as Kafka's: {@link DeliveryGuarantee#NONE}, {@link
 * DeliveryGuarantee#AT_LEAST_ONCE} (every checkpoint waits for its records' acknowledgements) and {@link
 * DeliveryGuarantee#EXACTLY_ONCE} (a Kafka transaction per checkpoint, committed when the checkpoint completes; see
 * {@link ExactlyOnceIsthmusWriter}; TCP only, as transactional produce is).
 */
public final class IsthmusSink<IN>
        implements Sink<IN>, SupportsCommitter<TransactionHandle>, SupportsWriterState<IN, IsthmusWriterState> {
    private static final long serialVersionUID = 1L;

    private final HashMap<String, String> producerSettings;
    private final DeliveryGuarantee deliveryGuarantee;
    private final IsthmusRecordSerializationSchema<IN> serializer;
    private final String transactionalIdPrefix;

    IsthmusSink(
            final HashMap<String, String> producerSettings,
            final DeliveryGuarantee deliveryGuarantee,
            final IsthmusRecordSerializationSchema<IN> serializer,
            final String transactionalIdPrefix) {
        this.producerSettings = producerSettings;
        this.deliveryGuarantee = deliveryGuarantee;
        this.serializer = serializer;
        this.transactionalIdPrefix = transactionalIdPrefix;
    }

    public static <IN> IsthmusSinkBuilder<IN> builder() {
        return new IsthmusSinkBuilder<>();
    }

    @Override
    public IsthmusWriter<IN> createWriter(final WriterInitContext context) throws IOException {
        return restoreWriter(context, List.of());
    }

    @Override
    public IsthmusWriter<IN> restoreWriter(
            final WriterInitContext context, final Collection<IsthmusWriterState> recoveredState) throws IOException {
        final Map<String, Object> settings = new HashMap<>(producerSettings);
        settings.putIfAbsent(
                ProducerConfig.CLIENT_ID,
                transactionalIdPrefix + "-" + context.getTaskInfo().getIndexOfThisSubtask());
        if (deliveryGuarantee == DeliveryGuarantee.EXACTLY_ONCE) {
            return ExactlyOnceIsthmusWriter.create(
                    context, settings, transactionalIdPrefix, serializer, recoveredState);
        }
        final DeliveryFailures failures =
                new DeliveryFailures(context.metricGroup().getNumRecordsSendErrorsCounter());
        return new IsthmusWriter<>(
                context,
                new IsthmusProducer(new ProducerConfig(settings), failures),
                failures,
                deliveryGuarantee,
                serializer);
    }

    @Override
    public Committer<TransactionHandle> createCommitter(final CommitterInitContext context) {
        return new IsthmusCommitter(new HashMap<>(producerSettings));
    }

    @Override
    public SimpleVersionedSerializer<TransactionHandle> getCommittableSerializer() {
        return new TransactionHandleSerializer();
    }

    @Override
    public SimpleVersionedSerializer<IsthmusWriterState> getWriterStateSerializer() {
        return new IsthmusWriterStateSerializer();
    }

    public DeliveryGuarantee deliveryGuarantee() {
        return deliveryGuarantee;
    }

    /** The settings each writer's producer gets (client id aside), for tests and diagnostics. */
    Map<String, String> producerSettings() {
        return Map.copyOf(producerSettings);
    }
}
