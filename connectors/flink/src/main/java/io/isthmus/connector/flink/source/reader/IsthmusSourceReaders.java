package io.isthmus.connector.flink.source.reader;

import io.isthmus.client.consumer.IsthmusConsumer;
import io.isthmus.connector.flink.source.reader.deserializer.IsthmusRecordDeserializationSchema;
import java.time.Duration;
import java.util.function.Supplier;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;

/** Wires a source reader: metrics, the split reader with its consumer, the fetcher manager and the emitter. */
public final class IsthmusSourceReaders {
    private IsthmusSourceReaders() {}

    public static <T> IsthmusSourceReader<T> create(
            final SourceReaderContext context,
            final Supplier<IsthmusConsumer> consumers,
            final IsthmusRecordDeserializationSchema<T> deserializer,
            final Duration pollTimeout,
            final boolean commitOffsetsOnCheckpoint) {
        final IsthmusSourceReaderMetrics metrics = new IsthmusSourceReaderMetrics(context.metricGroup());
        final Configuration configuration = context.getConfiguration();
        final IsthmusSourceFetcherManager fetchers = new IsthmusSourceFetcherManager(
                () -> new IsthmusPartitionSplitReader(consumers.get(), pollTimeout, metrics), configuration);
        return new IsthmusSourceReader<>(
                fetchers,
                new IsthmusRecordEmitter<>(deserializer),
                configuration,
                context,
                metrics,
                commitOffsetsOnCheckpoint);
    }
}
