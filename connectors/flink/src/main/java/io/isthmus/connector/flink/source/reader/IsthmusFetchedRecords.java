package io.isthmus.connector.flink.source.reader;

import io.isthmus.client.consumer.ConsumedRecord;
import io.isthmus.client.consumer.ConsumerBatch;
import java.util.Set;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;

/**
 * One poll's records on their way from the fetcher thread to the task thread, still in the buffer they arrived in.
 *
 * <p>The split fetcher thread polls the consumer and queues this object; Flink's {@code SourceReaderBase} then calls
 * {@link #nextSplit()}, {@link #nextRecordFromSplit()}, {@link #finishedSplits()} and {@link #recycle()} on the task
 * thread. So the {@link ConsumerBatch} is first iterated there, its slices' arena is confined there, and {@link
 * #recycle()} closes it there: the records' lifetime ends when the emitter is done with the last of them, and the
 * consumer takes the buffer back on its own thread at its next poll. Nothing is copied and nothing is allocated per
 * record; the record handed out is the batch's one flyweight.
 *
 * <p>A batch holds each partition's records in one run, so a split ends where the partition changes. Records at or
 * past their split's stopping offset are skipped here: the fetch that reaches the stop lists the split as finished.
 */
final class IsthmusFetchedRecords implements RecordsWithSplitIds<ConsumedRecord> {
    private final ConsumerBatch batch;
    private final AssignedSplits splits;
    private final Set<String> finished;
    private final long fetchedAtMillis;
    private final IsthmusSourceReaderMetrics metrics;
    private boolean lagReported;

    private AssignedSplits.Entry current;
    /** The batch stands on a record of another split than {@link #current}, not handed out yet. */
    private boolean lookahead;

    private boolean exhausted;

    /**
     * @param batch the polled records, or null for a fetch that only finishes splits
     * @param splits the splits assigned when the batch was polled (an immutable snapshot)
     * @param finished ids of the splits this fetch finishes
     * @param fetchedAtMillis when the poll returned, for {@code currentFetchEventTimeLag}
     */
    IsthmusFetchedRecords(
            final ConsumerBatch batch,
            final AssignedSplits splits,
            final Set<String> finished,
            final long fetchedAtMillis,
            final IsthmusSourceReaderMetrics metrics) {
        this.batch = batch;
        this.splits = splits;
        this.finished = finished;
        this.fetchedAtMillis = fetchedAtMillis;
        this.metrics = metrics;
        this.exhausted = batch == null;
    }

    @Override
    public String nextSplit() {
        current = null;
        if (!lookahead && !advance()) {
            return null;
        }
        lookahead = false;
        final ConsumedRecord record = batch.record();
        current = splits.find(record.topic(), record.partition());
        if (current == null) {
            throw new IllegalStateException("polled a record of a partition no split reads: topic=" + record.topic()
                    + ", partition=" + record.partition() + ", offset=" + record.offset() + ", splits=" + splits);
        }
        lookahead = true;
        return current.splitId();
    }

    @Override
    public ConsumedRecord nextRecordFromSplit() {
        if (current == null) {
            return null;
        }
        while (true) {
            if (!lookahead && !advance()) {
                current = null;
                return null;
            }
            lookahead = false;
            final ConsumedRecord record = batch.record();
            if (!current.reads(record.topic(), record.partition())) {
                lookahead = true;
                current = null;
                return null;
            }
            if (current.stopsBefore(record.offset())) {
                continue;
            }
            if (!lagReported) {
                lagReported = true;
                metrics.fetchEventTimeLag(fetchedAtMillis - record.timestamp());
            }
            return record;
        }
    }

    private boolean advance() {
        if (exhausted) {
            return false;
        }
        if (!batch.next()) {
            exhausted = true;
            return false;
        }
        return true;
    }

    @Override
    public Set<String> finishedSplits() {
        return finished;
    }

    @Override
    public void recycle() {
        if (batch != null) {
            batch.close();
        }
    }
}
