package io.isthmus.broker.log;

import io.isthmus.protocol.record.Record;
import io.isthmus.protocol.record.RecordBatch;
import io.isthmus.protocol.record.RecordCursor;
import java.lang.foreign.MemorySegment;
import java.util.function.Consumer;

/**
 * Reads a partition's log from its start to its end, record by record: how a coordinator loads the state its internal
 * log holds (transaction states, committed offsets) when it is elected or the broker starts. Whole batches only, as
 * the log returns them; the records handed over are valid until the visitor returns.
 */
public final class LogReplay {
    /** How much each read asks for: a batch larger than this is still returned whole. */
    private static final int READ_BYTES = 1 << 20;

    private LogReplay() {}

    /** What {@link #forEachBatchRecord} hands over: a record and the batch it is in (its producer, its flags). */
    @FunctionalInterface
    public interface BatchRecordVisitor {
        void accept(RecordBatch batch, Record record);
    }

    /** Hands every record of {@code log} to {@code visitor}, in order; returns how many there were. */
    public static long forEachRecord(final PartitionLog log, final Consumer<Record> visitor) {
        return forEachBatchRecord(log, (batch, record) -> visitor.accept(record));
    }

    /**
     * Hands every record of {@code log} to {@code visitor} with its batch, in order, control batches' records (the
     * transaction markers) included; returns how many there were.
     */
    public static long forEachBatchRecord(final PartitionLog log, final BatchRecordVisitor visitor) {
        final RecordBatch batch = new RecordBatch();
        long records = 0;
        long offset = log.logStartOffset();
        while (offset < log.logEndOffset()) {
            try (LogReadResult result = log.read(offset, READ_BYTES)) {
                if (result.isEmpty()) {
                    break;
                }
                final MemorySegment segment = result.records();
                long position = 0;
                while (position < segment.byteSize()) {
                    batch.wrap(segment, position);
                    final RecordCursor cursor = batch.cursor();
                    while (cursor.next()) {
                        visitor.accept(batch, cursor.record());
                        records++;
                    }
                    position += batch.sizeInBytes();
                }
                offset = result.nextOffset();
            }
        }
        return records;
    }
}
