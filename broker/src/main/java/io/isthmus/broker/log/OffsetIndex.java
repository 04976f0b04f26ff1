package io.isthmus.broker.log;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * Sparse map from offset to file position for one segment (layout in {@link OffsetIndexDescriptor}). The appender adds
 * an entry every {@code log.index.interval.bytes}; readers binary-search it without locks and then scan a few batches.
 * Not checksummed: like Kafka's, it is sanity-checked on open and rebuilt from the segment when it fails.
 */
public final class OffsetIndex extends MappedIndex {

    OffsetIndex(final Path file, final long baseOffset, final int maxEntries, final Arena arena) throws IOException {
        super(file, baseOffset, OffsetIndexDescriptor.ENTRY_LENGTH, maxEntries, arena);
    }

    /**
     * Adds an entry for the batch with base offset {@code offset} at {@code position}. Single writer. Returns false
     * (and adds nothing) when the index is full; the index is sparse, so a missing entry only costs a longer scan.
     */
    boolean append(final long offset, final int position) {
        final int count = entryCount();
        final MemorySegment entries = entries();
        if (count >= entries.byteSize() / OffsetIndexDescriptor.ENTRY_LENGTH) {
            return false;
        }
        reserveEntries(1); // reserved before the append began, except while recovery rebuilds the index
        final int relativeOffset = relativeOffset(offset);
        if (count > 0) {
            final int lastRelative = OffsetIndexDescriptor.relativeOffset(entries, count - 1);
            final int lastPosition = OffsetIndexDescriptor.position(entries, count - 1);
            if (relativeOffset <= lastRelative || position <= lastPosition) {
                throw new IllegalStateException("offset index entries must increase: file=" + file + " offset="
                        + offset + " position=" + position + " lastOffset=" + (baseOffset + lastRelative)
                        + " lastPosition=" + lastPosition);
            }
        }
        OffsetIndexDescriptor.put(entries, count, relativeOffset, position);
        publishAppendedEntry();
        return true;
    }

    /**
     * Position of the last indexed batch whose base offset is at most {@code targetOffset}, or 0 (the segment start)
     * when no entry is that low. Scanning forward from it reaches the batch that holds the target.
     */
    public int lookupPosition(final long targetOffset) {
        final int slot = largestSlotAtOrBelow(targetOffset);
        return slot < 0 ? 0 : OffsetIndexDescriptor.position(entries(), slot);
    }

    /** Base offset of the batch named by the last entry, or the segment base offset when empty. */
    public long lastIndexedOffset() {
        final int count = entryCount();
        return count == 0 ? baseOffset : baseOffset + OffsetIndexDescriptor.relativeOffset(entries(), count - 1);
    }

    /** Position named by the last entry, or 0 when empty. */
    public int lastIndexedPosition() {
        final int count = entryCount();
        return count == 0 ? 0 : OffsetIndexDescriptor.position(entries(), count - 1);
    }

    private int largestSlotAtOrBelow(final long targetOffset) {
        final MemorySegment entries = entries();
        final int count = entryCount();
        final long relativeTarget = targetOffset - baseOffset;
        int low = 0;
        int high = count - 1;
        int found = -1;
        while (low <= high) {
            final int mid = (low + high) >>> 1;
            if (OffsetIndexDescriptor.relativeOffset(entries, mid) <= relativeTarget) {
                found = mid;
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        return found;
    }

    private int relativeOffset(final long offset) {
        final long relative = offset - baseOffset;
        if (relative < 0 || relative > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("offset does not fit the segment's relative offsets: file=" + file
                    + " baseOffset=" + baseOffset + " offset=" + offset);
        }
        return (int) relative;
    }

    @Override
    protected void checkEntries(final MemorySegment entries, final int count, final long segmentCapacity) {
        int previousRelative = 0;
        int previousPosition = 0;
        for (int i = 0; i < count; i++) {
            final int relative = OffsetIndexDescriptor.relativeOffset(entries, i);
            final int position = OffsetIndexDescriptor.position(entries, i);
            if (relative <= previousRelative || position <= previousPosition || position >= segmentCapacity) {
                throw new CorruptIndexException("offset index entry out of order or out of the segment: file=" + file
                        + " entry=" + i + " relativeOffset=" + relative + " position=" + position
                        + " previousRelativeOffset=" + previousRelative + " previousPosition=" + previousPosition
                        + " segmentCapacity=" + segmentCapacity);
            }
            previousRelative = relative;
            previousPosition = position;
        }
    }
}
