package io.isthmus.broker.log;

/**
 * What an append committed.
 *
 * @param firstOffset base offset assigned to the first batch.
 * @param lastOffset last offset of the last batch.
 * @param segmentBaseOffset base offset of the segment the batches went into.
 * @param position byte position of the first batch in that segment.
 * @param sizeInBytes bytes committed.
 * @param maxTimestamp largest max timestamp among the batches (-1 when none has one).
 * @param batchCount batches committed.
 */
public record AppendInfo(
        long firstOffset,
        long lastOffset,
        long segmentBaseOffset,
        int position,
        int sizeInBytes,
        long maxTimestamp,
        int batchCount) {}
