package io.isthmus.broker.log;

import io.isthmus.protocol.record.BatchDecompressor;
import io.isthmus.protocol.record.InvalidRecordBatchException;
import io.isthmus.protocol.record.RecordBatchDescriptor;
import io.isthmus.protocol.record.RecordBatchValidator;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings a partition directory back to a consistent log when it is opened (Kafka's {@code LogLoader} plus {@code
 * LogSegment.recover}).
 *
 * <p>Decisions, each logged with offsets and positions:
 *
 * <ul>
 *   <li>Leftovers of unfinished deletions ({@code *.deleted}) and index files without a {@code .log} are removed.
 *   <li>Every segment's indexes are sanity-checked (entries strictly increasing, inside the file, the last offset entry
 *       pointing at a batch with that base offset). A missing, misaligned or failing index is rebuilt by a full scan.
 *   <li>After a clean shutdown ({@code .clean_shutdown} present), and for every sealed segment in any case, only the
 *       batches after the last offset-index entry are validated: sealed segments were forced before the next segment
 *       was created, and a clean shutdown forced everything.
 *   <li>Otherwise the active (last) segment is scanned from position 0 with full validation (CRC-32C and records),
 *       rebuilding its indexes. A simple rule that needs no recovery-point file; a 1 GiB segment scans in well under a
 *       second.
 *   <li>A scan ends at the segment end, at an all-zero header (preallocated space), at an invalid batch, or at a
 *       batch whose base offset is not the next expected one (bytes that were written but never committed). In the
 *       last two cases everything from there on is discarded (the file range becomes zeros again).
 * </ul>
 *
 * <p>The marker is deleted as soon as it has been read, so a crash during or after this recovery is unclean again.
 */
final class LogRecovery {
    private static final Logger LOG = LoggerFactory.getLogger(LogRecovery.class);

    /** Why a scan stopped. */
    enum Stop {
        END_OF_SEGMENT,
        ZERO_FILL,
        INVALID_BATCH,
        OFFSET_MISMATCH
    }

    /** Where a scan ended and what it found. */
    record ScanResult(
            int validEnd,
            long nextOffset,
            long maxTimestamp,
            int batches,
            int lastBatchPosition,
            Stop stop,
            String detail) {
        boolean endsInGarbage() {
            return stop == Stop.INVALID_BATCH || stop == Stop.OFFSET_MISMATCH;
        }
    }

    private LogRecovery() {}

    /** Opens and recovers every segment of the partition in {@code dir}, creating the first one for a new log. */
    static List<LogSegment> recover(
            final Path dir,
            final String partition,
            final LogConfig config,
            final SegmentIdAllocator ids,
            final long nowMs)
            throws IOException {
        Files.createDirectories(dir);
        final boolean clean = Files.deleteIfExists(dir.resolve(LogFileNames.CLEAN_SHUTDOWN_FILE));
        final TreeSet<Long> baseOffsets = listSegmentsAndRemoveLeftovers(dir, partition);
        final List<LogSegment> segments = new ArrayList<>(baseOffsets.size() + 1);
        if (baseOffsets.isEmpty()) {
            LOG.info("new log: partition={} dir={}", partition, dir);
            segments.add(LogSegment.create(dir, 0, ids, config.segmentBytes(), config));
            return segments;
        }
        LOG.info(
                "loading log: partition={} segments={} cleanShutdown={} firstBaseOffset={} lastBaseOffset={}",
                partition,
                baseOffsets.size(),
                clean,
                baseOffsets.first(),
                baseOffsets.last());
        try (BatchDecompressor decompressor = new BatchDecompressor()) {
            long expectedOffset = baseOffsets.first();
            for (final long baseOffset : baseOffsets) {
                final boolean last = baseOffset == baseOffsets.last();
                if (baseOffset < expectedOffset) {
                    throw new IllegalStateException("segments overlap: partition=" + partition + " baseOffset="
                            + baseOffset + " previousSegmentNextOffset=" + expectedOffset);
                }
                if (baseOffset > expectedOffset) {
                    LOG.warn(
                            "offsets missing between segments: partition={} missingFrom={} missingTo={}",
                            partition,
                            expectedOffset,
                            baseOffset - 1);
                }
                final LogSegment segment =
                        LogSegment.open(dir, baseOffset, ids, last ? config.segmentBytes() : 0, config);
                try {
                    recoverSegment(partition, segment, !clean && last, decompressor, nowMs);
                    if (!last) {
                        segment.seal();
                    }
                } catch (final IOException | RuntimeException ex) {
                    segment.closeUnclean();
                    segments.forEach(LogSegment::closeUnclean);
                    throw ex;
                }
                segments.add(segment);
                expectedOffset = segment.nextOffset();
            }
        }
        final LogSegment active = segments.getLast();
        LOG.info(
                "log loaded: partition={} logStartOffset={} logEndOffset={} activeSegment={} activePosition={}",
                partition,
                segments.getFirst().baseOffset(),
                active.nextOffset(),
                active.baseOffset(),
                active.committedPosition());
        return segments;
    }

    private static TreeSet<Long> listSegmentsAndRemoveLeftovers(final Path dir, final String partition)
            throws IOException {
        final TreeSet<Long> logs = new TreeSet<>();
        final List<Path> indexes = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (final Path file : files) {
                final String name = file.getFileName().toString();
                if (name.endsWith(LogFileNames.DELETED_SUFFIX)) {
                    LOG.info("removing leftover of an unfinished deletion: partition={} file={}", partition, name);
                    Files.deleteIfExists(file);
                } else if (LogFileNames.baseOffsetOf(name, LogFileNames.LOG_SUFFIX) >= 0) {
                    logs.add(LogFileNames.baseOffsetOf(name, LogFileNames.LOG_SUFFIX));
                } else if (LogFileNames.baseOffsetOf(name, LogFileNames.INDEX_SUFFIX) >= 0
                        || LogFileNames.baseOffsetOf(name, LogFileNames.TIME_INDEX_SUFFIX) >= 0) {
                    indexes.add(file);
                }
            }
        }
        for (final Path index : indexes) {
            final String name = index.getFileName().toString();
            final long base = Math.max(
                    LogFileNames.baseOffsetOf(name, LogFileNames.INDEX_SUFFIX),
                    LogFileNames.baseOffsetOf(name, LogFileNames.TIME_INDEX_SUFFIX));
            if (!logs.contains(base)) {
                LOG.warn("removing index without a segment: partition={} file={}", partition, name);
                Files.deleteIfExists(index);
            }
        }
        return logs;
    }

    /** Recovers one segment and restores its state; see the class comment for the rules. */
    static void recoverSegment(
            final String partition,
            final LogSegment segment,
            final boolean fullScan,
            final BatchDecompressor decompressor,
            final long nowMs)
            throws IOException {
        ScanResult result = null;
        if (fullScan) {
            LOG.info(
                    "unclean shutdown: validating whole active segment: partition={} baseOffset={}",
                    partition,
                    segment.baseOffset());
        } else {
            try {
                result = scanFromLastIndexEntry(segment, decompressor);
            } catch (final CorruptIndexException ex) {
                LOG.warn(
                        "rebuilding indexes: partition={} baseOffset={} reason={}",
                        partition,
                        segment.baseOffset(),
                        ex.getMessage());
            }
        }
        if (result == null) {
            result = rescan(segment, decompressor);
            LOG.info(
                    "indexes rebuilt: partition={} baseOffset={} offsetIndexEntries={} timeIndexEntries={}",
                    partition,
                    segment.baseOffset(),
                    segment.offsetIndex().entryCount(),
                    segment.timeIndex().entryCount());
        }
        if (result.endsInGarbage()) {
            LOG.warn(
                    "truncating segment after last valid batch: partition={} baseOffset={} validEnd={} nextOffset={}"
                            + " stop={} detail={}",
                    partition,
                    segment.baseOffset(),
                    result.validEnd(),
                    result.nextOffset(),
                    result.stop(),
                    result.detail());
            segment.discardFrom(result.validEnd());
        } else {
            LOG.debug(
                    "segment recovered: partition={} baseOffset={} validEnd={} nextOffset={} stop={}",
                    partition,
                    segment.baseOffset(),
                    result.validEnd(),
                    result.nextOffset(),
                    result.stop());
        }
        restore(segment, result, nowMs);
    }

    /**
     * Rebuilds a freshly mapped segment's indexes and state from its batches, up to the first zero header (a truncated
     * segment), and returns where the scan ended. Only before the segment is visible to readers.
     */
    static ScanResult rebuild(final LogSegment segment, final BatchDecompressor decompressor, final long nowMs) {
        final ScanResult result = rescan(segment, decompressor);
        restore(segment, result, nowMs);
        return result;
    }

    /** Forgets the segment's index entries and scans it whole, indexing each batch again. */
    private static ScanResult rescan(final LogSegment segment, final BatchDecompressor decompressor) {
        segment.clearIndexes();
        return scan(segment, 0, segment.baseOffset(), true, decompressor);
    }

    private static void restore(final LogSegment segment, final ScanResult result, final long nowMs) {
        final MemorySegment mapping = segment.mapping();
        final long firstBatchTimestamp = result.validEnd() == 0
                ? RecordBatchDescriptor.NO_TIMESTAMP
                : RecordBatchDescriptor.maxTimestamp(mapping, 0);
        segment.restore(
                result.validEnd(),
                result.nextOffset(),
                result.maxTimestamp(),
                result.validEnd() - segment.offsetIndex().lastIndexedPosition(),
                firstBatchTimestamp,
                nowMs);
    }

    private static ScanResult scanFromLastIndexEntry(final LogSegment segment, final BatchDecompressor decompressor) {
        final OffsetIndex offsetIndex = segment.offsetIndex();
        final TimeIndex timeIndex = segment.timeIndex();
        offsetIndex.sanityCheck(segment.capacity());
        timeIndex.sanityCheck(segment.capacity());
        final int start = offsetIndex.lastIndexedPosition();
        final long startOffset = offsetIndex.lastIndexedOffset();
        final ScanResult result = scan(segment, start, startOffset, false, decompressor);
        if (start > 0 && result.validEnd() == start) {
            throw new CorruptIndexException("last offset index entry does not point at a valid batch: file="
                    + offsetIndex.file() + " position=" + start + " offset=" + startOffset + " stop=" + result.stop()
                    + " detail=" + result.detail());
        }
        if (timeIndex.entryCount() > 0) {
            final long lastTimeIndexOffset = timeIndex.lookupStartOffset(Long.MAX_VALUE);
            if (lastTimeIndexOffset > result.nextOffset()) {
                throw new CorruptIndexException("time index points past the segment: file=" + timeIndex.file()
                        + " offset=" + lastTimeIndexOffset + " segmentNextOffset=" + result.nextOffset());
            }
        }
        if (result.lastBatchPosition() - start > segment.indexIntervalBytes() && !offsetIndex.isFull()) {
            // The appender adds an entry once more than an interval of bytes follows the last one.
            throw new CorruptIndexException(
                    "offset index incomplete: file=" + offsetIndex.file() + " lastEntryPosition="
                            + start + " lastBatchPosition=" + result.lastBatchPosition() + " indexIntervalBytes="
                            + segment.indexIntervalBytes());
        }
        final long largest = Math.max(result.maxTimestamp(), timeIndex.lastTimestamp());
        return new ScanResult(
                result.validEnd(),
                result.nextOffset(),
                Math.max(largest, RecordBatchDescriptor.NO_TIMESTAMP),
                result.batches(),
                result.lastBatchPosition(),
                result.stop(),
                result.detail());
    }

    /**
     * Validates batch after batch from {@code position}, expecting base offset {@code expectedOffset} first, and stops
     * as described in the class comment. With {@code rebuildIndexes} it adds index entries as the appender would.
     */
    static ScanResult scan(
            final LogSegment segment,
            final int position,
            final long expectedOffset,
            final boolean rebuildIndexes,
            final BatchDecompressor decompressor) {
        final MemorySegment mapping = segment.mapping();
        final long capacity = segment.capacity();
        long pos = position;
        long next = expectedOffset;
        long maxTimestamp = RecordBatchDescriptor.NO_TIMESTAMP;
        int batches = 0;
        long lastBatch = position;
        while (true) {
            if (capacity - pos < RecordBatchDescriptor.LOG_OVERHEAD) {
                return new ScanResult((int) pos, next, maxTimestamp, batches, (int) lastBatch, Stop.END_OF_SEGMENT, "");
            }
            final long baseOffset = RecordBatchDescriptor.baseOffset(mapping, pos);
            final int length = RecordBatchDescriptor.length(mapping, pos);
            if (baseOffset == 0 && length == 0) {
                return new ScanResult((int) pos, next, maxTimestamp, batches, (int) lastBatch, Stop.ZERO_FILL, "");
            }
            final long size;
            try {
                size = RecordBatchValidator.validate(
                        mapping, pos, capacity, RecordBatchValidator.Mode.STORED, decompressor);
            } catch (final InvalidRecordBatchException ex) {
                return new ScanResult(
                        (int) pos, next, maxTimestamp, batches, (int) lastBatch, Stop.INVALID_BATCH, ex.getMessage());
            }
            if (baseOffset != next) {
                return new ScanResult(
                        (int) pos,
                        next,
                        maxTimestamp,
                        batches,
                        (int) lastBatch,
                        Stop.OFFSET_MISMATCH,
                        "expectedBaseOffset=" + next + " actualBaseOffset=" + baseOffset);
            }
            if (rebuildIndexes) {
                segment.indexBatch(baseOffset, (int) pos, (int) size, maxTimestamp);
            }
            maxTimestamp = Math.max(maxTimestamp, RecordBatchDescriptor.maxTimestamp(mapping, pos));
            next = RecordBatchDescriptor.lastOffset(mapping, pos) + 1;
            lastBatch = pos;
            pos += size;
            batches++;
        }
    }
}
