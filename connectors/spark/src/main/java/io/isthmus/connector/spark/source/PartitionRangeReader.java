package io.isthmus.connector.spark.source;

import io.isthmus.client.consumer.ConsumedRecord;
import io.isthmus.client.consumer.ConsumerBatch;
import io.isthmus.client.consumer.IsthmusConsumer;
import io.isthmus.connector.spark.IsthmusOptions;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one {@link OffsetRange} into column batches with the executor's cached consumer of the partition. The rows
 * are the polled records in place (see {@link RecordColumns}): the consumer batches they lie in stay open until Spark
 * asks for the next column batch, and are closed then.
 *
 * <p><b>Data loss.</b> The consumer never resets on its own ({@code auto.offset.reset=none}). Where the range's next
 * offset is below the log start (retention deleted it), or past the log's end (the topic was deleted and made again),
 * the task fails with {@code failOnDataLoss=true}, naming the partition and the offsets lost; otherwise it logs the
 * same and goes on from the log start, or ends the range.
 */
final class PartitionRangeReader implements PartitionReader<ColumnarBatch> {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionRangeReader.class);

    /** Rows per column batch: Spark's own columnar readers' default. */
    static final int BATCH_ROWS = 4096;

    /** How long one poll waits before the reader looks at where it stands. */
    private static final Duration POLL_STEP = Duration.ofMillis(100);

    private final IsthmusInputPartition input;
    private final OffsetRange range;
    private final TopicPartition partition;
    private final ConsumerPool.Key key;
    private final RecordColumns columns;
    /** Consumer batches the current column batch's rows lie in; the last one may have records left. */
    private final ArrayDeque<ConsumerBatch> held = new ArrayDeque<>();

    private IsthmusConsumer consumer;
    /** Where the consumer stood after the poll of the newest held batch: past all of its records. */
    private long positionAfterPoll;

    private long next;
    private boolean failed;

    PartitionRangeReader(final IsthmusInputPartition input) {
        this.input = input;
        this.range = input.range();
        this.partition = range.partition();
        this.key = new ConsumerPool.Key(input.consumerSettings(), partition);
        this.columns = new RecordColumns(partition.topic(), partition.partition(), BATCH_ROWS, input.schema());
        this.next = range.from();
    }

    @Override
    public boolean next() {
        try {
            return fill();
        } catch (final RuntimeException | Error e) {
            failed = true;
            throw e;
        }
    }

    private boolean fill() {
        columns.reset();
        releaseConsumedBatches();
        if (next >= range.until()) {
            return false;
        }
        if (consumer == null) {
            consumer = ConsumerPool.executor().borrow(key, next);
        }
        long stalledSince = System.nanoTime();
        while (columns.room() > 0 && next < range.until()) {
            final ConsumerBatch batch = held.peekLast();
            if (batch != null && take(batch)) {
                continue; // the column batch is full, or the range is read
            }
            final long before = next;
            final ConsumerBatch polled;
            try {
                polled = consumer.poll(POLL_STEP);
            } catch (final OffsetOutOfRangeException e) {
                if (!skipLostOffsets()) {
                    break;
                }
                continue;
            }
            positionAfterPoll = consumer.position(partition);
            final int rowsBefore = columns.rows();
            if (!take(polled) && columns.rows() == rowsBefore) {
                polled.close(); // nothing of it in the columns: no need to hold it
            } else {
                held.addLast(polled);
            }
            if (next != before) {
                stalledSince = System.nanoTime();
            } else if (System.nanoTime() - stalledSince > input.pollTimeoutMs() * 1_000_000L) {
                if (!endPastLogEnd()) {
                    break;
                }
                stalledSince = System.nanoTime();
            }
        }
        return columns.rows() > 0 || next < range.until();
    }

    /**
     * Adds the batch's records to the columns until they are full or the range ends.
     *
     * @return false when the batch has no record left (then {@code next} is where the consumer stood after it, so that
     *     offsets without records, transaction markers and aborted batches, are passed too)
     */
    private boolean take(final ConsumerBatch batch) {
        while (columns.room() > 0) {
            if (!batch.next()) {
                next = Math.max(next, Math.min(positionAfterPoll, range.until()));
                return false;
            }
            final ConsumedRecord record = batch.record();
            if (record.offset() >= range.until()) {
                next = range.until(); // the rest is the next range's
                return true;
            }
            columns.add(record);
            next = record.offset() + 1;
        }
        return true;
    }

    /** Closes the consumer batches whose rows Spark has read, keeping the newest if records are left in it. */
    private void releaseConsumedBatches() {
        while (held.size() > 1 || (!held.isEmpty() && next >= range.until())) {
            held.pollFirst().close();
        }
    }

    /**
     * The next offset is below the log start: report the loss, then go on from the log start if allowed.
     *
     * @return whether there is more of the range to read
     */
    private boolean skipLostOffsets() {
        final long start = consumer.beginningOffsets(List.of(partition)).get(partition);
        final long lostUntil = Math.min(start, range.until());
        reportDataLoss("offsets [" + next + ", " + lostUntil + ") of " + partition
                + " are no longer in the log, whose start is now " + start
                + " (retention deleted them, or the topic was deleted)");
        next = lostUntil;
        if (next >= range.until()) {
            return false;
        }
        consumer.seek(partition, next);
        return true;
    }

    /**
     * No record came for the poll timeout: if the log ends before the range does, the rest is lost; otherwise the
     * broker does not serve what it has, which fails the task.
     *
     * @return whether there is more of the range to read
     */
    private boolean endPastLogEnd() {
        final long end = consumer.endOffsets(List.of(partition)).get(partition);
        if (end <= next) {
            reportDataLoss("offsets [" + next + ", " + range.until() + ") of " + partition + " are past the log's end "
                    + end + " (the topic was deleted and created again?)");
            next = range.until();
            return false;
        }
        throw new IllegalStateException("no record came for offset " + next + " of " + partition + " in "
                + input.pollTimeoutMs() + " ms although the log ends at " + end + "; raise the option '"
                + IsthmusOptions.POLL_TIMEOUT_MS + "' if the broker is slow");
    }

    private void reportDataLoss(final String what) {
        if (input.failOnDataLoss()) {
            throw new IllegalStateException(what + ". Some data may have been lost. If the query should skip lost"
                    + " offsets instead of failing, set the source option '" + IsthmusOptions.FAIL_ON_DATA_LOSS
                    + "' to 'false'.");
        }
        LOG.warn(
                "{}. Some data may have been lost; skipping ahead, as '{}' is false.",
                what,
                IsthmusOptions.FAIL_ON_DATA_LOSS);
    }

    @Override
    public ColumnarBatch get() {
        return columns.batch();
    }

    @Override
    public void close() {
        try {
            while (!held.isEmpty()) {
                held.pollFirst().close();
            }
            if (consumer != null) {
                ConsumerPool.executor().giveBack(key, consumer, !failed);
                consumer = null;
            }
        } finally {
            columns.close();
        }
    }
}
