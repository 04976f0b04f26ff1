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
        } catch (final DownstreamFailure e) {
            // A chained operator after the source failed: its error, not the deserializer's.
            throw e.getCause();
        } catch (final IOException | RuntimeException e) {
            throw new IOException(
                    "failed to deserialize a record: topic=" + record.topic() + ", partition="
                            + record.partition() + ", offset=" + record.offset() + ", deserializer="
                            + deserializer.getClass().getName(),
                    e);
        }
        state.nextOffset(record.offset() + 1);
    }

    /**
     * Emits to the split's output with the current record's timestamp. One per emitter, reused. Operators chained
     * after the source run inside {@code collect}; their failures are marked so they are not blamed on the record.
     */
    private static final class TimestampedCollector<T> implements Collector<T> {
        SourceOutput<T> output;
        long timestamp;

        @Override
        public void collect(final T element) {
            try {
                output.collect(element, timestamp);
            } catch (final RuntimeException e) {
                throw new DownstreamFailure(e);
            }
        }

        @Override
        public void close() {}
    }

    /** Carries a failure of a downstream operator through the deserializer, so the emitter passes it on as it is. */
    private static final class DownstreamFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        DownstreamFailure(final RuntimeException cause) {
            super(cause);
        }

        @Override
        public synchronized RuntimeException getCause() {
            return (RuntimeException) super.getCause();
        }
    }
}
