package io.isthmus.connector.spark.source;

import io.isthmus.client.consumer.IsthmusConsumer;
import io.isthmus.connector.spark.IsthmusOptions;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one {@link OffsetRange} into column batches with the executor's cached consumer of the partition. Records
 * reach the columns from the consumer's handler poll, in place (see {@link RecordColumns}).
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
    private IsthmusConsumer consumer;
    private long next;
    private boolean failed;

    PartitionRangeReader(final IsthmusInputPartition input) {
        this.input = input;
        this.range = input.range();
        this.partition = range.partition();
        this.key = new ConsumerPool.Key(input.consumerSettings(), partition);
        this.columns = new RecordColumns(partition.topic(), partition.partition(), BATCH_ROWS, input.includeHeaders());
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
        columns.reset(range.until());
        if (next >= range.until()) {
            return false;
        }
        if (consumer == null) {
            consumer = ConsumerPool.executor().borrow(key, next);
        }
        long stalledSince = System.nanoTime();
        while (columns.room() > 0 && next < range.until()) {
            final long before = next;
            try {
                final int limit = (int) Math.min(columns.room(), range.until() - next);
                consumer.poll(columns, limit, POLL_STEP);
            } catch (final OffsetOutOfRangeException e) {
                if (!skipLostOffsets()) {
                    break;
                }
                continue;
            }
            next = consumer.position(partition);
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
            if (consumer != null) {
                ConsumerPool.executor().giveBack(key, consumer, !failed);
                consumer = null;
            }
        } finally {
            columns.close();
        }
    }
}
