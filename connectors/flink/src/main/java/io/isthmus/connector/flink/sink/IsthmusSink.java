package io.isthmus.connector.flink.sink;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.connector.base.DeliveryGuarantee;

/**
 * A Flink sink (Sink V2) writing to topics of any Kafka-protocol broker through the isthmus producer, over TCP, or
 * over RDMA to an isthmus broker ({@code transport}). Build one with {@link #builder()}, the twin of {@code
 * KafkaSink.builder()}. Delivery guarantees: {@link DeliveryGuarantee#NONE} and {@link
 * DeliveryGuarantee#AT_LEAST_ONCE} (every checkpoint waits for its records' acknowledgements).
 */
public final class IsthmusSink<IN> implements Sink<IN> {
    private static final long serialVersionUID = 1L;

    private final HashMap<String, String> producerSettings;
    private final DeliveryGuarantee deliveryGuarantee;
    private final IsthmusRecordSerializationSchema<IN> serializer;
    private final String clientIdPrefix;

    IsthmusSink(
            final HashMap<String, String> producerSettings,
            final DeliveryGuarantee deliveryGuarantee,
            final IsthmusRecordSerializationSchema<IN> serializer,
            final String clientIdPrefix) {
        this.producerSettings = producerSettings;
        this.deliveryGuarantee = deliveryGuarantee;
        this.serializer = serializer;
        this.clientIdPrefix = clientIdPrefix;
    }

    public static <IN> IsthmusSinkBuilder<IN> builder() {
        return new IsthmusSinkBuilder<>();
    }

    @Override
    public SinkWriter<IN> createWriter(final WriterInitContext context) throws IOException {
        final Map<String, Object> settings = new HashMap<>(producerSettings);
        settings.putIfAbsent(
                "client.id", clientIdPrefix + "-" + context.getTaskInfo().getIndexOfThisSubtask());
        return new IsthmusWriter<>(context, settings, deliveryGuarantee, serializer);
    }

    public DeliveryGuarantee deliveryGuarantee() {
        return deliveryGuarantee;
    }

    /** The settings each writer's producer gets (client id aside), for tests and diagnostics. */
    Map<String, String> producerSettings() {
        return Map.copyOf(producerSettings);
    }
}
