package io.isthmus.connector.flink.sink;

import io.isthmus.client.producer.IsthmusProducer;
import io.isthmus.client.producer.TransactionHandle;
import io.isthmus.protocol.record.HeaderList;
import java.io.IOException;
import java.util.Collection;
import java.util.List;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.metrics.Counter;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;

/**
 * Writes the sink's records with an {@link IsthmusProducer} per subtask. With {@link DeliveryGuarantee#AT_LEAST_ONCE}
 * every checkpoint waits until all records written before it are acknowledged ({@link #flush}), so a restore never
 * loses one; with {@link DeliveryGuarantee#NONE} checkpoints do not wait. {@link ExactlyOnceIsthmusWriter} adds the
 * transactions of {@link DeliveryGuarantee#EXACTLY_ONCE}; this writer has no committables and no state (Kafka's {@code
 * KafkaWriter} likewise).
 *
 * <p>A failed delivery is learned per producer batch ({@link DeliveryFailures}) and fails the job at the next write or
 * flush, with the topic and partition named.
 */
class IsthmusWriter<IN>
        implements CommittingSinkWriter<IN, TransactionHandle>, StatefulSinkWriter<IN, IsthmusWriterState> {
    private final DeliveryGuarantee deliveryGuarantee;
    private final IsthmusRecordSerializationSchema<IN> serializer;
    private final WriterContext sinkContext;
    private final HeaderList headers = new HeaderList();
    private final Counter recordsSent;
    private final Counter bytesSent;
    final DeliveryFailures failures;
    /** The producer records go to now (an exactly-once writer moves to a new one each checkpoint). */
    IsthmusProducer producer;

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

    /**
     * @param producer the first producer, built with {@code failures} as its delivery listener; this writer closes it
     */
    IsthmusWriter(
            final WriterInitContext context,
            final IsthmusProducer producer,
            final DeliveryFailures failures,
            final DeliveryGuarantee deliveryGuarantee,
            final IsthmusRecordSerializationSchema<IN> serializer)
            throws IOException {
        this.deliveryGuarantee = deliveryGuarantee;
        this.serializer = serializer;
        this.failures = failures;
        this.producer = producer;
        this.recordsSent = context.metricGroup().getNumRecordsSendCounter();
        this.bytesSent = context.metricGroup().getNumBytesSendCounter();
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

    @Override
    public void write(final IN element, final Context context) throws IOException {
        failures.check();
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
        onRecordSent();
    }

    /** Called after each record handed to the producer. */
    void onRecordSent() {}

    @Override
    public void flush(final boolean endOfInput) throws IOException {
        if (deliveryGuarantee != DeliveryGuarantee.NONE || endOfInput) {
            producer.flush();
        }
        failures.check();
    }

    /** Nothing to commit: records are written, not staged. */
    @Override
    public Collection<TransactionHandle> prepareCommit() throws IOException, InterruptedException {
        return List.of();
    }

    /** No state: nothing to recover but the source's position. */
    @Override
    public List<IsthmusWriterState> snapshotState(final long checkpointId) throws IOException {
        return List.of();
    }

    /**
     * Closes the producer. A delivery failure still pending is logged, not thrown: a normal end of input already met
     * it in {@link #flush}, and Flink also closes writers while cancelling a failed task, where a throw from here
     * takes the whole task manager down.
     */
    @Override
    public void close() throws Exception {
        producer.close();
        failures.logPending();
    }
}
