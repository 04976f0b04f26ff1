package io.isthmus.connector.flink.source.reader;

import io.isthmus.client.consumer.ConsumedRecord;
import io.isthmus.client.consumer.OffsetCommitCallback;
import io.isthmus.connector.flink.source.split.IsthmusPartitionSplit;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.fetcher.SingleThreadFetcherManager;
import org.apache.flink.connector.base.source.reader.fetcher.SplitFetcher;
import org.apache.flink.connector.base.source.reader.fetcher.SplitFetcherTask;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.kafka.common.TopicPartition;

/**
 * One split fetcher thread per reader, plus a way to commit offsets on it: the consumer is that thread's alone, so a
 * commit is a task queued to it, as Kafka's {@code KafkaSourceFetcherManager} does.
 */
final class IsthmusSourceFetcherManager extends SingleThreadFetcherManager<ConsumedRecord, IsthmusPartitionSplit> {
    IsthmusSourceFetcherManager(
            final Supplier<SplitReader<ConsumedRecord, IsthmusPartitionSplit>> splitReaders,
            final Configuration configuration) {
        super(splitReaders, configuration);
    }

    /** Commits {@code offsets} to the group on the fetcher thread; starts a fetcher if every split finished. */
    void commitOffsets(final Map<TopicPartition, Long> offsets, final OffsetCommitCallback callback) {
        if (offsets.isEmpty()) {
            return;
        }
        SplitFetcher<ConsumedRecord, IsthmusPartitionSplit> fetcher = getRunningFetcher();
        final boolean started = fetcher != null;
        if (!started) {
            fetcher = createSplitFetcher();
        }
        final IsthmusPartitionSplitReader reader = (IsthmusPartitionSplitReader) fetcher.getSplitReader();
        fetcher.enqueueTask(new SplitFetcherTask() {
            @Override
            public boolean run() {
                reader.commitOffsets(offsets, callback);
                return true;
            }

            @Override
            public void wakeUp() {}
        });
        if (!started) {
            startFetcher(fetcher);
        }
    }
}
