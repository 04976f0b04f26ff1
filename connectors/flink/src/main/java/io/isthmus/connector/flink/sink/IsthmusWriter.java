package io.isthmus.connector.flink.sink;

import io.isthmus.client.producer.IsthmusProducer;
import io.isthmus.client.producer.ProducerConfig;
import io.isthmus.protocol.record.HeaderList;
import java.io.IOException;
import java.util.Map;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.groups.SinkWriterMetricGroup;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;

/**
 * Writes the sink's records with one {@link IsthmusProducer} per subtask. With {@link DeliveryGuarantee#AT_LEAST_ONCE}
 * every checkpoint waits until all records written before it are acknowledged ({@link #flush}), so a restore never
 * loses one; with {@link DeliveryGuarantee#NONE} checkpoints do not wait.
 *
 * <p>A failed delivery is learned per producer batch ({@link io.isthmus.client.producer.DeliveryListener}, on the
 * producer's sender thread) and fails the job at the next write or flush, with the topic and partition named:
 * nothing that failed is ever treated as written.
 */
final class IsthmusWriter<IN> implements SinkWriter<IN> {
    private final DeliveryGuarantee deliveryGuarantee;
    private final IsthmusRecordSerializationSchema<IN> serializer;
    private final IsthmusProducer producer;
    private final WriterContext sinkContext;
    private final HeaderList headers = new HeaderList();
    private final Counter recordsSent;
    private final Counter bytesSent;
    private final Counter sendErrors;
    private volatile RuntimeException deliveryFailure;

    /** The answers a serializer gets about this writer. */
    private final class WriterContext implements IsthmusSinkContext {
        private final int subtask;
        private final int parallelism;

        WriterContext(final int subtask, final int parallelism) {
            this.subtask = subtask;
            this.parallelism = parallelism;
        }

        @Override
        public int getParallelInstanceId() {
            return subtask;
        }

        @Override
        public int getNumberOfParallelInstances() {
            return parallelism;
        }

        @Override
        public int[] getPartitionsForTopic(final String topic) {
            final int count = producer.partitionCount(topic);
            final int[] partitions = new int[count];
            for (int i = 0; i < count; i++) {
                partitions[i] = i;
            }
            return partitions;
        }
    }

    IsthmusWriter(
            final WriterInitContext context,
            final Map<String, Object> producerSettings,
            final DeliveryGuarantee deliveryGuarantee,
            final IsthmusRecordSerializationSchema<IN> serializer)
            throws IOException {
        this.deliveryGuarantee = deliveryGuarantee;
        this.serializer = serializer;
        final SinkWriterMetricGroup metrics = context.metricGroup();
        this.recordsSent = metrics.getNumRecordsSendCounter();
        this.bytesSent = metrics.getNumBytesSendCounter();
        this.sendErrors = metrics.getNumRecordsSendErrorsCounter();
        this.producer = new IsthmusProducer(new ProducerConfig(producerSettings), this::onDelivery);
        this.sinkContext = new WriterContext(
                context.getTaskInfo().getIndexOfThisSubtask(),
                context.getTaskInfo().getNumberOfParallelSubtasks());
        try {
            serializer.open(context.asSerializationSchemaInitializationContext(), sinkContext);
        } catch (final Exception e) {
            producer.close();
            throw new IOException(
                    "the record serializer failed to open: "
                            + serializer.getClass().getName(),
                    e);
        }
    }

    private void onDelivery(
            final String topic,
            final int partition,
            final long baseOffset,
            final int recordCount,
            final RuntimeException error) {
        if (error != null) {
            sendErrors.inc(recordCount);
            if (deliveryFailure == null) {
                deliveryFailure = new IllegalStateException(
                        "delivery failed: topic=" + topic + ", partition=" + partition + ", records=" + recordCount,
                        error);
            }
        }
    }

    @Override
    public void write(final IN element, final Context context) throws IOException {
        checkDeliveries();
        final ProducerRecord<byte[], byte[]> record = serializer.serialize(element, sinkContext, context.timestamp());
        if (record == null) {
            return;
        }
        headers.clear();
        for (final Header header : record.headers()) {
            headers.add(header.key(), header.value());
        }
        final Long timestamp = record.timestamp() != null ? record.timestamp() : context.timestamp();
        producer.send(
                record.topic(),
                record.partition() == null ? IsthmusProducer.ANY_PARTITION : record.partition(),
                timestamp == null ? IsthmusProducer.NOW : timestamp,
                record.key(),
                record.value(),
                headers.isEmpty() ? null : headers,
                null);
        recordsSent.inc();
        bytesSent.inc((record.key() == null ? 0 : record.key().length)
                + (record.value() == null ? 0 : record.value().length));
    }

    @Override
    public void flush(final boolean endOfInput) throws IOException {
        if (deliveryGuarantee != DeliveryGuarantee.NONE || endOfInput) {
            producer.flush();
        }
        checkDeliveries();
    }

    private void checkDeliveries() throws IOException {
        final RuntimeException failure = deliveryFailure;
        if (failure != null) {
            throw new IOException("the isthmus sink failed to deliver records", failure);
        }
    }

    @Override
    public void close() throws Exception {
        producer.close();
        checkDeliveries();
    }
}
