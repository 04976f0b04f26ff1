package io.isthmus.broker.log;

/**
 * What an append committed, or, for an idempotent producer's retry, where the batch it repeats already is.
 *
 * @param firstOffset base offset assigned to the first batch (of the original, for a duplicate).
 * @param lastOffset last offset of the last batch (of the original, for a duplicate).
 * @param segmentBaseOffset base offset of the segment the batches went into (-1 for a duplicate).
 * @param position byte position of the first batch in that segment (-1 for a duplicate).
 * @param sizeInBytes bytes committed, or, for a duplicate written in place, the bytes discarded.
 * @param maxTimestamp largest max timestamp among the batches (-1 when none has one).
 * @param batchCount batches committed (0 for a duplicate).
 * @param duplicate true when nothing was committed because every batch was already in the log.
 */
public record AppendInfo(
        long firstOffset,
        long lastOffset,
        long segmentBaseOffset,
        int position,
        int sizeInBytes,
        long maxTimestamp,
        int batchCount,
        boolean duplicate) {

    /** Nothing committed: the batches repeat ones at {@code firstOffset..lastOffset}. */
    static AppendInfo duplicateOf(final long firstOffset, final long lastOffset, final long sizeInBytes) {
        return new AppendInfo(firstOffset, lastOffset, -1, -1, (int) sizeInBytes, -1, 0, true);
    }
}
