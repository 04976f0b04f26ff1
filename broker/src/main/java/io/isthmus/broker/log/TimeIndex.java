package io.isthmus.broker.log;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * Sparse map from timestamp to offset for one segment (layout and invariant in {@link TimeIndexDescriptor}), used by
 * {@link PartitionLog#offsetForTimestamp(long)}. Written at the same batches as the offset index, plus once more when
 * the segment is sealed or closed so that the last entry carries the segment's largest timestamp.
 */
public final class TimeIndex extends MappedIndex {

    TimeIndex(final Path file, final long baseOffset, final int maxEntries, final Arena arena) throws IOException {
        super(file, baseOffset, TimeIndexDescriptor.ENTRY_LENGTH, maxEntries, arena);
    }

    /**
     * Records that every batch before the one with base offset {@code offset} has a max timestamp of at most {@code
     * timestamp}. Does nothing unless the timestamp grows, or when the index is full.
     */
    boolean maybeAppend(final long timestamp, final long offset) {
        final int count = entryCount();
        final MemorySegment entries = entries();
        if (count >= entries.byteSize() / TimeIndexDescriptor.ENTRY_LENGTH) {
            return false;
        }
        if (count > 0 && timestamp <= TimeIndexDescriptor.timestamp(entries, count - 1)) {
            return false;
        }
        reserveEntries(1); // reserved before the append began, except while recovery rebuilds the index
        TimeIndexDescriptor.put(entries, count, timestamp, (int) (offset - baseOffset));
        publishAppendedEntry();
        return true;
    }

    /**
     * An offset from which a forward scan finds the first batch with max timestamp at least {@code targetTimestamp}:
     * the offset of the last entry whose timestamp is below the target (all batches before it are older), or the
     * segment base offset.
     */
    public long lookupStartOffset(final long targetTimestamp) {
        final MemorySegment entries = entries();
        final int count = entryCount();
        int low = 0;
        int high = count - 1;
        int found = -1;
        while (low <= high) {
            final int mid = (low + high) >>> 1;
            if (TimeIndexDescriptor.timestamp(entries, mid) < targetTimestamp) {
                found = mid;
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        return found < 0 ? baseOffset : baseOffset + TimeIndexDescriptor.relativeOffset(entries, found);
    }

    /** Timestamp of the last entry, or {@code Long.MIN_VALUE} when empty. */
    public long lastTimestamp() {
        final int count = entryCount();
        return count == 0 ? Long.MIN_VALUE : TimeIndexDescriptor.timestamp(entries(), count - 1);
    }

    @Override
    protected void checkEntries(final MemorySegment entries, final int count, final long segmentCapacity) {
        long previousTimestamp = Long.MIN_VALUE;
        int previousRelative = 0;
        for (int i = 0; i < count; i++) {
            final long timestamp = TimeIndexDescriptor.timestamp(entries, i);
            final int relative = TimeIndexDescriptor.relativeOffset(entries, i);
            if (timestamp <= previousTimestamp || relative < previousRelative) {
                throw new CorruptIndexException("time index entry out of order: file=" + file + " entry=" + i
                        + " timestamp=" + timestamp + " relativeOffset=" + relative + " previousTimestamp="
                        + previousTimestamp + " previousRelativeOffset=" + previousRelative);
            }
            previousTimestamp = timestamp;
            previousRelative = relative;
        }
    }
}
