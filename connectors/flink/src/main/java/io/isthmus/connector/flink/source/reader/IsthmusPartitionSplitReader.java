package io.isthmus.connector.flink.source.reader;

import io.isthmus.client.consumer.ConsumedRecord;
import io.isthmus.client.consumer.ConsumerBatch;
import io.isthmus.client.consumer.IsthmusConsumer;
import io.isthmus.client.consumer.OffsetCommitCallback;
import io.isthmus.connector.flink.source.split.IsthmusPartitionSplit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsRemoval;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

/**
 * Reads the assigned splits with one {@link IsthmusConsumer} on Flink's split fetcher thread, the consumer's only
 * thread. Each {@link #fetch()} is one poll; its batch goes to the task thread whole ({@link IsthmusFetchedRecords}).
 *
 * <p>A split with a stopping offset is finished by the fetch after which the consumer's position reached the stop;
 * the records past the stop in that fetch are skipped on the task thread. Its partition is then unassigned, so it is
 * not fetched again.
 */
final class IsthmusPartitionSplitReader implements SplitReader<ConsumedRecord, IsthmusPartitionSplit> {
    private final IsthmusConsumer consumer;
    private final Duration pollTimeout;
    private final IsthmusSourceReaderMetrics metrics;
    private final Map<TopicPartition, IsthmusPartitionSplit> splits = new LinkedHashMap<>();
    /** Splits that were empty when assigned (start at their stop): finished by the next fetch. */
    private final Set<String> finishedOnAssignment = new HashSet<>();

    private AssignedSplits snapshot = AssignedSplits.NONE;

    IsthmusPartitionSplitReader(
            final IsthmusConsumer consumer, final Duration pollTimeout, final IsthmusSourceReaderMetrics metrics) {
        this.consumer = consumer;
        this.pollTimeout = pollTimeout;
        this.metrics = metrics;
    }

    @Override
    public RecordsWithSplitIds<ConsumedRecord> fetch() {
        final Set<String> finished = new HashSet<>(finishedOnAssignment);
        finishedOnAssignment.clear();
        ConsumerBatch batch = null;
        if (!splits.isEmpty()) {
            try {
                batch = consumer.poll(pollTimeout);
            } catch (final WakeupException e) {
                // Flink woke the fetcher to change splits or to shut down: hand over what finished, nothing else.
                return new IsthmusFetchedRecords(null, AssignedSplits.NONE, finished, 0, metrics);
            }
        }
        final long fetchedAt = System.currentTimeMillis();
        final AssignedSplits polledWith = snapshot;
        if (batch != null && batch.isEmpty()) {
            batch.close();
            batch = null;
        }
        if (batch != null) {
            metrics.bytesIn(batch.sizeInBytes());
        }
        finishStoppedSplits(finished);
        metrics.pendingRecords(pendingRecords());
        return new IsthmusFetchedRecords(batch, polledWith, finished, fetchedAt, metrics);
    }

    /** Splits whose stop the position reached: finished now and no longer fetched. */
    private void finishStoppedSplits(final Set<String> finished) {
        boolean removed = false;
        for (final Iterator<IsthmusPartitionSplit> it = splits.values().iterator(); it.hasNext(); ) {
            final IsthmusPartitionSplit split = it.next();
            if (split.hasStoppingOffset() && consumer.position(split.partition()) >= split.stoppingOffset()) {
                finished.add(split.splitId());
                it.remove();
                removed = true;
            }
        }
        if (removed) {
            reassign();
        }
    }

    private long pendingRecords() {
        long pending = 0;
        for (final IsthmusPartitionSplit split : splits.values()) {
            final OptionalLong lag = consumer.currentLag(split.partition());
            if (lag.isPresent()) {
                pending += lag.getAsLong();
            }
        }
        return pending;
    }

    @Override
    public void handleSplitsChanges(final SplitsChange<IsthmusPartitionSplit> change) {
        if (change instanceof SplitsAddition<IsthmusPartitionSplit> addition) {
            final List<IsthmusPartitionSplit> added = new ArrayList<>();
            for (final IsthmusPartitionSplit split : addition.splits()) {
                if (split.hasStoppingOffset() && split.startingOffset() >= split.stoppingOffset()) {
                    finishedOnAssignment.add(split.splitId());
                } else {
                    splits.put(split.partition(), split);
                    added.add(split);
                }
            }
            reassign();
            for (final IsthmusPartitionSplit split : added) {
                consumer.seek(split.partition(), split.startingOffset());
            }
        } else if (change instanceof SplitsRemoval<IsthmusPartitionSplit> removal) {
            for (final IsthmusPartitionSplit split : removal.splits()) {
                splits.remove(split.partition());
            }
            reassign();
        } else {
            throw new UnsupportedOperationException("unknown splits change: " + change);
        }
    }

    private void reassign() {
        consumer.assign(new ArrayList<>(splits.keySet()));
        snapshot = AssignedSplits.of(splits.values());
    }

    @Override
    public void pauseOrResumeSplits(
            final Collection<IsthmusPartitionSplit> toPause, final Collection<IsthmusPartitionSplit> toResume) {
        consumer.pause(partitionsOf(toPause));
        consumer.resume(partitionsOf(toResume));
    }

    private static List<TopicPartition> partitionsOf(final Collection<IsthmusPartitionSplit> splits) {
        final List<TopicPartition> partitions = new ArrayList<>(splits.size());
        for (final IsthmusPartitionSplit split : splits) {
            partitions.add(split.partition());
        }
        return partitions;
    }

    /** Commits checkpointed offsets to the group, on the fetcher thread (the consumer's thread). */
    void commitOffsets(final Map<TopicPartition, Long> offsets, final OffsetCommitCallback callback) {
        consumer.commitAsync(offsets, callback);
    }

    @Override
    public void wakeUp() {
        consumer.wakeup();
    }

    @Override
    public void close() {
        consumer.close();
    }
}
