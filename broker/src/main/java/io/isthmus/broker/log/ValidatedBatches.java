package io.isthmus.broker.log;

import io.isthmus.protocol.record.BatchDecompressor;
import io.isthmus.protocol.record.BatchSummary;
import io.isthmus.protocol.record.EndTransactionMarker;
import io.isthmus.protocol.record.InvalidRecordBatchException;
import io.isthmus.protocol.record.RecordBatchValidator;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The batches of one append, each fully validated once into a {@link BatchSummary} that every later step of the append
 * trusts (the producer-state check, the grouping into segments, offset assignment, the indexes), and whether the
 * producer-state check found it a duplicate. Owned by a {@link PartitionLog} and reused under its append lock, so an
 * append allocates nothing per batch.
 */
final class ValidatedBatches {
    private BatchSummary[] summaries = new BatchSummary[0];
    private boolean[] duplicates = new boolean[0];
    private long[] baseOffsets = new long[0];
    private int count;
    private MemorySegment memory;

    /**
     * Validates every batch in {@code [from, limit)} of {@code memory}, which must hold whole batches exactly, as a
     * producer sends them ({@link RecordBatchValidator.Mode#PRODUCE}) or as a leader's log holds them ({@link
     * RecordBatchValidator.Mode#STORED}, replication).
     *
     * @throws InvalidRecordBatchException at the first invalid batch
     */
    void validate(
            final MemorySegment memory,
            final long from,
            final long limit,
            final RecordBatchValidator.Mode mode,
            final BatchDecompressor decompressor) {
        count = 0;
        this.memory = memory;
        long position = from;
        while (position < limit) {
            position += RecordBatchValidator.validate(memory, position, limit, mode, decompressor, next());
            duplicates[count - 1] = false;
        }
    }

    private BatchSummary next() {
        if (count == summaries.length) {
            final int grown = Math.max(4, count * 2);
            summaries = Arrays.copyOf(summaries, grown);
            duplicates = Arrays.copyOf(duplicates, grown);
            baseOffsets = Arrays.copyOf(baseOffsets, grown);
            for (int i = count; i < grown; i++) {
                summaries[i] = new BatchSummary();
            }
        }
        return summaries[count++];
    }

    int count() {
        return count;
    }

    /** The coordinator epoch in control batch {@code index}'s marker (read from the memory validated). */
    int coordinatorEpoch(final int index) {
        return EndTransactionMarker.coordinatorEpoch(memory, summaries[index].position());
    }

    BatchSummary get(final int index) {
        return summaries[index];
    }

    /** The batch repeats one already in the log: it is not written again. */
    void markDuplicate(final int index) {
        duplicates[index] = true;
    }

    boolean isDuplicate(final int index) {
        return duplicates[index];
    }

    /** The commit gave the batch this base offset (or, for a duplicate, the original has it). */
    void assignBaseOffset(final int index, final long baseOffset) {
        baseOffsets[index] = baseOffset;
    }

    long baseOffset(final int index) {
        return baseOffsets[index];
    }
}
