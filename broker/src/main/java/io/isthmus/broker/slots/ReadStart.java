package io.isthmus.broker.slots;

import io.isthmus.broker.log.LogReadResult;
import io.isthmus.broker.log.LogSegment;
import io.isthmus.broker.log.OffsetOutOfRangeException;
import io.isthmus.broker.log.PartitionLog;

/**
 * Where a one-sided consumer starts reading for an offset: the segment holding it and the file position of the batch
 * that holds it, or the active segment's committed end for the log end offset (a consumer waiting for new records).
 *
 * @param segment the segment to grant access to
 * @param position the first byte to read in it
 */
public record ReadStart(LogSegment segment, long position) {
    /**
     * Locates {@code offset} in {@code log}.
     *
     * @throws OffsetOutOfRangeException if the offset is not in the log (below its start, past its end)
     */
    public static ReadStart locate(final PartitionLog log, final long offset) {
        if (offset == log.logEndOffset()) {
            final LogSegment active = log.activeSegment();
            return new ReadStart(active, active.committedPosition());
        }
        try (LogReadResult result = log.read(offset, 1)) {
            if (result.isEmpty()) {
                final LogSegment active = log.activeSegment();
                return new ReadStart(active, active.committedPosition());
            }
            return new ReadStart(result.segment(), result.filePosition());
        }
    }
}
