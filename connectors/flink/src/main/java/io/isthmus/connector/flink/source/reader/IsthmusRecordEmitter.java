package io.isthmus.connector.flink.source.reader;

import io.isthmus.client.consumer.ConsumedRecord;
import io.isthmus.connector.flink.source.reader.deserializer.IsthmusRecordDeserializationSchema;
import io.isthmus.connector.flink.source.split.IsthmusPartitionSplitState;
import java.io.IOException;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.apache.flink.util.Collector;

/**
 * Deserializes each record in place, on the task thread, and emits what the schema produced with the record's
 * timestamp (so a {@code WatermarkStrategy} sees event time per partition); then moves the split's offset past it.
 */
final class IsthmusRecordEmitter<T> implements RecordEmitter<ConsumedRecord, T, IsthmusPartitionSplitState> {
    private final IsthmusRecordDeserializationSchema<T> deserializer;
    private final TimestampedCollector<T> collector = new TimestampedCollector<>();

    IsthmusRecordEmitter(final IsthmusRecordDeserializationSchema<T> deserializer) {
        this.deserializer = deserializer;
    }

    @Override
    public void emitRecord(
            final ConsumedRecord record, final SourceOutput<T> output, final IsthmusPartitionSplitState state)
            throws IOException {
        collector.output = output;
        collector.timestamp = record.timestamp();
        try {
            deserializer.deserialize(record, collector);
        } catch (final IOException | RuntimeException e) {
            throw new IOException(
                    "failed to deserialize a record: topic=" + record.topic() + ", partition="
                            + record.partition() + ", offset=" + record.offset() + ", deserializer="
                            + deserializer.getClass().getName(),
                    e);
        }
        state.nextOffset(record.offset() + 1);
    }

    /** Emits to the split's output with the current record's timestamp. One per emitter, reused. */
    private static final class TimestampedCollector<T> implements Collector<T> {
        SourceOutput<T> output;
        long timestamp;

        @Override
        public void collect(final T element) {
            output.collect(element, timestamp);
        }

        @Override
        public void close() {}
    }
}
