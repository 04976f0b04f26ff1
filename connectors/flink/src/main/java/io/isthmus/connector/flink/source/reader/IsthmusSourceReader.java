package io.isthmus.connector.flink.source.reader;

import io.isthmus.client.consumer.ConsumedRecord;
import io.isthmus.connector.flink.source.split.IsthmusPartitionSplit;
import io.isthmus.connector.flink.source.split.IsthmusPartitionSplitState;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.SingleThreadMultiplexSourceReaderBase;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The source reader: Flink's single-fetcher-thread reader over {@link IsthmusPartitionSplitReader}, with Kafka's
 * offset handling. A checkpoint stores each split's next offset; when the checkpoint completes those offsets (and
 * those of splits finished before it) are committed to the group if {@code commit.offsets.on.checkpoint} is on. The
 * committed offsets are for monitoring and for a fresh start with {@code committedOffsets()}: recovery always uses
 * the checkpoint.
 */
public final class IsthmusSourceReader<T>
        extends SingleThreadMultiplexSourceReaderBase<
                ConsumedRecord, T, IsthmusPartitionSplit, IsthmusPartitionSplitState> {
    private static final Logger LOG = LoggerFactory.getLogger(IsthmusSourceReader.class);

    private final IsthmusSourceFetcherManager fetchers;
    private final IsthmusSourceReaderMetrics metrics;
    private final boolean commitOffsetsOnCheckpoint;
    private final SortedMap<Long, Map<TopicPartition, Long>> offsetsToCommit = new TreeMap<>();
    /** Next offsets of finished splits, committed with the next checkpoint and then forgotten. */
    private final Map<TopicPartition, Long> offsetsOfFinishedSplits = new ConcurrentHashMap<>();

    IsthmusSourceReader(
            final IsthmusSourceFetcherManager fetchers,
            final IsthmusRecordEmitter<T> emitter,
            final Configuration configuration,
            final SourceReaderContext context,
            final IsthmusSourceReaderMetrics metrics,
            final boolean commitOffsetsOnCheckpoint) {
        super(fetchers, emitter, configuration, context);
        this.fetchers = fetchers;
        this.metrics = metrics;
        this.commitOffsetsOnCheckpoint = commitOffsetsOnCheckpoint;
    }

    @Override
    protected void onSplitFinished(final Map<String, IsthmusPartitionSplitState> finished) {
        for (final IsthmusPartitionSplitState state : finished.values()) {
            offsetsOfFinishedSplits.put(state.split().partition(), state.nextOffset());
        }
    }

    @Override
    protected IsthmusPartitionSplitState initializedState(final IsthmusPartitionSplit split) {
        final IsthmusPartitionSplitState state = new IsthmusPartitionSplitState(split);
        metrics.registerSplit(state);
        return state;
    }

    @Override
    protected IsthmusPartitionSplit toSplitType(final String splitId, final IsthmusPartitionSplitState state) {
        return state.toSplit();
    }

    @Override
    public List<IsthmusPartitionSplit> snapshotState(final long checkpointId) {
        final List<IsthmusPartitionSplit> splits = super.snapshotState(checkpointId);
        if (commitOffsetsOnCheckpoint) {
            final Map<TopicPartition, Long> offsets = new HashMap<>(offsetsOfFinishedSplits);
            for (final IsthmusPartitionSplit split : splits) {
                offsets.put(split.partition(), split.startingOffset());
            }
            offsetsToCommit.put(checkpointId, offsets);
        }
        return splits;
    }

    @Override
    public void notifyCheckpointComplete(final long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        if (!commitOffsetsOnCheckpoint) {
            return;
        }
        final Map<TopicPartition, Long> offsets = offsetsToCommit.get(checkpointId);
        // Older checkpoints that never completed are superseded by this one.
        offsetsToCommit.headMap(checkpointId + 1).clear();
        if (offsets == null || offsets.isEmpty()) {
            return;
        }
        fetchers.commitOffsets(offsets, (committed, failure) -> {
            if (failure != null) {
                metrics.commitFailed();
                LOG.warn("committing offsets of checkpoint {} failed: {}", checkpointId, committed, failure);
                return;
            }
            metrics.committed(committed);
            committed.forEach((partition, offset) -> offsetsOfFinishedSplits.remove(partition, offset));
        });
    }
}
