package io.isthmus.broker.log;

import io.isthmus.protocol.record.BatchDecompressor;
import io.isthmus.protocol.record.InvalidRecordBatchException;
import io.isthmus.protocol.record.RecordBatchDescriptor;
import io.isthmus.protocol.record.RecordBatchValidator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log of one topic partition: an ordered set of {@link LogSegment}s in {@code <log.dirs>/<topic>-<partition>/}, of
 * which the last is active (takes appends) and all others are sealed.
 *
 * <p><b>Concurrency.</b> One appender at a time: {@link #append}, {@link #commitWritten}, {@link #roll}, retention,
 * flush and close are serialised by one lock (a partition has one leader-side writer anyway; the lock makes a second
 * one safe, not fast). Readers ({@link #read}, {@link #offsetForTimestamp}, the offset getters) take no lock: they
 * load the log end offset with acquire semantics, find the segment in a {@link ConcurrentSkipListMap}, take a lease
 * on it and read only below its committed position, which the appender publishes with release semantics after the
 * batch bytes and the rewritten base offsets. Readers therefore only ever see whole, committed batches.
 *
 * <p><b>Two append paths.</b> TCP produce copies validated batches to the tail ({@link #append}); RDMA produce finds
 * the bytes already at the tail, written by a remote WRITE, and {@link #commitWritten commits} them after validating in
 * place. Both assign base offsets and the leader epoch in place: the fields lie outside the CRC.
 *
 * <p>The high watermark equals the log end offset until replication exists.
 */
public final class PartitionLog implements AutoCloseable {
    /** {@link #offsetForTimestamp} target meaning "the log end offset" (Kafka's LATEST_TIMESTAMP). */
    public static final long LATEST_TIMESTAMP = -1L;
    /** {@link #offsetForTimestamp} target meaning "the log start offset" (Kafka's EARLIEST_TIMESTAMP). */
    public static final long EARLIEST_TIMESTAMP = -2L;

    private static final Logger LOG = LoggerFactory.getLogger(PartitionLog.class);
    private static final VarHandle LOG_END_OFFSET;

    static {
        try {
            LOG_END_OFFSET = MethodHandles.lookup().findVarHandle(PartitionLog.class, "logEndOffset", long.class);
        } catch (final ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final String name;
    private final Path dir;
    private final LogConfig config;
    private final SegmentIdAllocator ids;
    private final InstantSource clock;
    private final ConcurrentSkipListMap<Long, LogSegment> segments = new ConcurrentSkipListMap<>();
    private final ReentrantLock appendLock = new ReentrantLock();
    private final BatchDecompressor decompressor = new BatchDecompressor();
    /** Sizes of the batches of the append in progress; reused, so an append allocates no array (append lock). */
    private long[] batchSizes = new long[16];

    @SuppressWarnings("unused") // accessed through LOG_END_OFFSET
    private long logEndOffset;

    private volatile long logStartOffset;
    private volatile LogSegment active;
    private volatile boolean closed;
    private final SegmentPreToucher preToucher;
    private long unflushedRecords;
    private long firstUnflushedAppendMs = -1;

    private PartitionLog(
            final String name,
            final Path dir,
            final LogConfig config,
            final SegmentIdAllocator ids,
            final InstantSource clock,
            final SegmentPreToucher preToucher,
            final List<LogSegment> recovered) {
        this.name = name;
        this.dir = dir;
        this.config = config;
        this.ids = ids;
        this.clock = clock;
        this.preToucher = preToucher;
        for (final LogSegment segment : recovered) {
            segments.put(segment.baseOffset(), segment);
        }
        this.active = recovered.getLast();
        this.logStartOffset = recovered.getFirst().baseOffset();
        LOG_END_OFFSET.setRelease(this, active.nextOffset());
        // No touching yet: a log opened only to be deleted (a stray at start) must not be leased meanwhile; the
        // first append asks for the pages it needs.
    }

    /**
     * Opens the partition log in {@code dir} (its name is the partition's name), recovering it if the last shutdown
     * was not clean, or creates an empty one. Its segments are not pre-touched.
     */
    public static PartitionLog open(
            final Path dir, final LogConfig config, final SegmentIdAllocator ids, final InstantSource clock)
            throws IOException {
        return open(dir, config, ids, clock, SegmentPreToucher.NONE);
    }

    /** As {@link #open(Path, LogConfig, SegmentIdAllocator, InstantSource)}, with pages ahead of the tail touched. */
    public static PartitionLog open(
            final Path dir,
            final LogConfig config,
            final SegmentIdAllocator ids,
            final InstantSource clock,
            final SegmentPreToucher preToucher)
            throws IOException {
        final String name = dir.getFileName().toString();
        final List<LogSegment> recovered = LogRecovery.recover(dir, name, config, ids, clock.millis());
        return new PartitionLog(name, dir, config, ids, clock, preToucher, recovered);
    }

    // ------------------------------------------------------------------ offsets

    public String name() {
        return name;
    }

    public Path dir() {
        return dir;
    }

    public LogConfig config() {
        return config;
    }

    /** Offset after the last committed batch (acquire). */
    public long logEndOffset() {
        return (long) LOG_END_OFFSET.getAcquire(this);
    }

    /** Equal to {@link #logEndOffset()} until replication exists. */
    public long highWatermark() {
        return logEndOffset();
    }

    /** First offset still in the log; advanced by retention. */
    public long logStartOffset() {
        return logStartOffset;
    }

    /** The segment that takes appends now. */
    public LogSegment activeSegment() {
        return active;
    }

    /** Live segments in offset order (a snapshot view; sealed ones first). */
    public Collection<LogSegment> segments() {
        return Collections.unmodifiableCollection(new ArrayList<>(segments.values()));
    }

    /** Sum of committed bytes over all segments. */
    public long sizeInBytes() {
        long size = 0;
        for (final LogSegment segment : segments.values()) {
            size += segment.committedPosition();
        }
        return size;
    }

    // ------------------------------------------------------------------ append

    /**
     * Appends batches arriving over TCP: validates each (CRC-32C, header, records), copies them to the tail, assigns
     * base offsets and {@code leaderEpoch} in place and publishes. Batches that do not fit the active segment go to a
     * new one; all or nothing is validated before anything is written.
     *
     * @throws InvalidRecordBatchException if any batch is invalid (nothing is appended)
     * @throws RecordBatchTooLargeException if one batch is larger than a segment
     */
    public AppendInfo append(final MemorySegment batches, final int leaderEpoch) {
        final long size = batches.byteSize();
        if (size == 0) {
            throw new IllegalArgumentException("empty append: partition=" + name);
        }
        appendLock.lock();
        try {
            ensureOpen();
            final int validated = validateAll(batches);
            final long[] batchSizes = this.batchSizes;
            AppendInfo first = null;
            AppendInfo last = null;
            int batchCount = 0;
            long maxTimestamp = RecordBatchDescriptor.NO_TIMESTAMP;
            long from = 0;
            int batchIndex = 0;
            while (from < size) {
                // Greedy group of whole batches that fits one segment.
                long groupSize = 0;
                long groupOffsets = 0;
                int groupEnd = batchIndex;
                while (groupEnd < validated) {
                    final long batchSize = batchSizes[groupEnd];
                    if (batchSize > config.segmentBytes()) {
                        throw new RecordBatchTooLargeException("batch larger than a segment: partition=" + name
                                + " batchSize=" + batchSize + " log.segment.bytes=" + config.segmentBytes());
                    }
                    if (groupSize + batchSize > config.segmentBytes()) {
                        break;
                    }
                    groupOffsets += 1L
                            + batches.get(
                                    RecordBatchDescriptor.INT32,
                                    from + groupSize + RecordBatchDescriptor.LAST_OFFSET_DELTA_OFFSET);
                    groupSize += batchSize;
                    groupEnd++;
                }
                final LogSegment segment = segmentFor(groupSize, groupOffsets);
                final int position = segment.tail();
                MemorySegment.copy(batches, from, segment.mapping(), position, groupSize);
                last = commit(segment, position, (int) groupSize, leaderEpoch);
                if (first == null) {
                    first = last;
                }
                batchCount += last.batchCount();
                maxTimestamp = Math.max(maxTimestamp, last.maxTimestamp());
                from += groupSize;
                batchIndex = groupEnd;
            }
            maybeFlushAfterAppend(first.firstOffset(), last.lastOffset());
            return new AppendInfo(
                    first.firstOffset(),
                    last.lastOffset(),
                    first.segmentBaseOffset(),
                    first.position(),
                    (int) Math.min(Integer.MAX_VALUE, size),
                    maxTimestamp,
                    batchCount);
        } catch (final IOException ex) {
            throw new UncheckedIOException("append failed: partition=" + name, ex);
        } finally {
            appendLock.unlock();
        }
    }

    /**
     * Commits batches that were written straight into the active segment's memory at its tail (an RDMA WRITE): they
     * are validated in place, then offsets and epoch are assigned and the new end published. If anything is invalid
     * the range is zeroed, nothing is committed and {@link InvalidRecordBatchException} is thrown (the caller revokes
     * the producer's access).
     *
     * @param segmentId id of the segment the producer was given (RDMA immediates carry it)
     * @param position where the write started: must be the committed tail (exclusive producers commit in order)
     * @param length bytes written: whole batches, exactly
     * @throws SegmentNotWritableException if the segment is not the active one or the position is not the tail
     */
    public AppendInfo commitWritten(
            final int segmentId, final long position, final long length, final int leaderEpoch) {
        return commitWritten(segmentId, position, length, leaderEpoch, null);
    }

    /**
     * {@link #commitWritten(int, long, long, int)}, asking {@code admission} (when not null) after validation whether
     * to commit: where it refuses, the range is zeroed and null is returned.
     */
    public AppendInfo commitWritten(
            final int segmentId,
            final long position,
            final long length,
            final int leaderEpoch,
            final WrittenBatchAdmission admission) {
        appendLock.lock();
        try {
            ensureOpen();
            final LogSegment segment = active;
            if (segment.id() != segmentId) {
                throw new SegmentNotWritableException("segment is not the active one: partition=" + name
                        + " segmentId=" + segmentId + " activeSegmentId=" + segment.id() + " activeBaseOffset="
                        + segment.baseOffset());
            }
            if (position != segment.tail() || length <= 0 || position + length > segment.capacity()) {
                throw new SegmentNotWritableException("write is not at the committed tail: partition=" + name
                        + " segmentId=" + segmentId + " position=" + position + " length=" + length
                        + " committedPosition=" + segment.tail() + " capacity=" + segment.capacity());
            }
            final MemorySegment mapping = segment.mapping();
            final long end = position + length;
            try {
                long pos = position;
                while (pos < end) {
                    pos += RecordBatchValidator.validate(
                            mapping, pos, end, RecordBatchValidator.Mode.PRODUCE, decompressor);
                }
            } catch (final InvalidRecordBatchException ex) {
                segment.zeroUncommitted(position, length);
                LOG.warn(
                        "rejected batches written in place: partition={} segmentId={} position={} length={} reason={}",
                        name,
                        segmentId,
                        position,
                        length,
                        ex.getMessage());
                throw ex;
            }
            if (admission != null && !admission.admit(mapping, position, length)) {
                segment.zeroUncommitted(position, length);
                return null;
            }
            final AppendInfo info = commit(segment, (int) position, (int) length, leaderEpoch);
            maybeFlushAfterAppend(info.firstOffset(), info.lastOffset());
            return info;
        } finally {
            appendLock.unlock();
        }
    }

    /**
     * Zeroes bytes that were written past the committed tail of the active segment {@code segmentId} and will never
     * be committed (shared RDMA reservations revoked after their writers lost access), so neither a later writer nor
     * recovery after a crash can mistake them for batches. Nothing happens if the segment is no longer the active one:
     * a sealed segment ends at its committed position.
     */
    public void discardUncommitted(final int segmentId, final long position, final long length) {
        appendLock.lock();
        try {
            ensureOpen();
            if (active.id() == segmentId && length > 0) {
                active.zeroUncommitted(position, length);
            }
        } finally {
            appendLock.unlock();
        }
    }

    /**
     * A lease on the active segment, for RDMA registration or for writing at its tail. Close it when access is
     * released; the segment stays mapped until then even if it is sealed and deleted meanwhile.
     */
    public SegmentLease acquireActiveSegment() {
        appendLock.lock();
        try {
            ensureOpen();
            final SegmentLease lease = active.tryAcquire();
            if (lease == null) {
                throw new IllegalStateException("active segment already released: partition=" + name);
            }
            return lease;
        } finally {
            appendLock.unlock();
        }
    }

    /** Seals the active segment and starts a new one at the log end offset (a no-op when the active one is empty). */
    public LogSegment roll() {
        appendLock.lock();
        try {
            ensureOpen();
            return rollLocked();
        } catch (final IOException ex) {
            throw new UncheckedIOException("roll failed: partition=" + name, ex);
        } finally {
            appendLock.unlock();
        }
    }

    /** Validates every batch, leaving their sizes in {@link #batchSizes}; returns how many there are. */
    private int validateAll(final MemorySegment batches) {
        final long size = batches.byteSize();
        int count = 0;
        long pos = 0;
        while (pos < size) {
            final long batchSize =
                    RecordBatchValidator.validate(batches, pos, size, RecordBatchValidator.Mode.PRODUCE, decompressor);
            if (count == batchSizes.length) {
                batchSizes = Arrays.copyOf(batchSizes, count * 2);
            }
            batchSizes[count++] = batchSize;
            pos += batchSize;
        }
        return count;
    }

    private LogSegment segmentFor(final long size, final long offsets) throws IOException {
        final LogSegment segment = active;
        if (segment.isEmpty()) {
            return segment;
        }
        final long nowMs = clock.millis();
        final String reason;
        if (size > segment.remaining()) {
            reason = "full";
        } else if (nowMs - segment.rollBaseMs() > config.rollMs()) {
            reason = "log.roll.ms";
        } else if (segment.offsetIndex().isFull() || segment.timeIndex().isFull()) {
            reason = "index full";
        } else if (logEndOffset() + offsets - segment.baseOffset() > Integer.MAX_VALUE) {
            reason = "relative offsets exhausted";
        } else {
            return segment;
        }
        LOG.debug("rolling: partition={} reason={} baseOffset={}", name, reason, segment.baseOffset());
        return rollLocked();
    }

    private LogSegment rollLocked() throws IOException {
        final LogSegment old = active;
        if (old.isEmpty()) {
            return old;
        }
        final long newBase = logEndOffset();
        old.seal();
        final LogSegment fresh = LogSegment.create(dir, newBase, ids, config.segmentBytes(), config);
        preToucher.aheadOf(fresh);
        segments.put(newBase, fresh);
        active = fresh;
        unflushedRecords = 0;
        firstUnflushedAppendMs = -1;
        LOG.info(
                "rolled: partition={} sealedBaseOffset={} sealedPosition={} newBaseOffset={} newSegmentId={}",
                name,
                old.baseOffset(),
                old.committedPosition(),
                newBase,
                fresh.id());
        return fresh;
    }

    /** Assigns offsets and epoch to whole, valid batches in {@code [position, position+length)} and publishes them. */
    private AppendInfo commit(final LogSegment segment, final int position, final int length, final int leaderEpoch) {
        final MemorySegment mapping = segment.mapping();
        final long firstOffset = logEndOffset();
        long next = firstOffset;
        long largestTimestamp = segment.maxTimestamp();
        long appendedMaxTimestamp = RecordBatchDescriptor.NO_TIMESTAMP;
        int batches = 0;
        long pos = position;
        final long end = (long) position + length;
        while (pos < end) {
            final int size = (int) RecordBatchDescriptor.batchSize(mapping, pos);
            final int lastOffsetDelta =
                    mapping.get(RecordBatchDescriptor.INT32, pos + RecordBatchDescriptor.LAST_OFFSET_DELTA_OFFSET);
            RecordBatchDescriptor.baseOffset(mapping, pos, next);
            mapping.set(
                    RecordBatchDescriptor.INT32,
                    pos + RecordBatchDescriptor.PARTITION_LEADER_EPOCH_OFFSET,
                    leaderEpoch);
            segment.indexBatch(next, (int) pos, size, largestTimestamp);
            final long batchMaxTimestamp =
                    mapping.get(RecordBatchDescriptor.INT64, pos + RecordBatchDescriptor.MAX_TIMESTAMP_OFFSET);
            largestTimestamp = Math.max(largestTimestamp, batchMaxTimestamp);
            appendedMaxTimestamp = Math.max(appendedMaxTimestamp, batchMaxTimestamp);
            next += lastOffsetDelta + 1L;
            pos += size;
            batches++;
        }
        // Bytes and offset rewrites above, then the segment's committed position, then the log end offset: each a
        // release store, so whoever sees the new end offset also sees the position and the bytes.
        segment.publish((int) end, next, appendedMaxTimestamp, clock.millis());
        LOG_END_OFFSET.setRelease(this, next);
        preToucher.aheadOf(segment);
        return new AppendInfo(
                firstOffset, next - 1, segment.baseOffset(), position, length, appendedMaxTimestamp, batches);
    }

    private void maybeFlushAfterAppend(final long firstOffset, final long lastOffset) {
        unflushedRecords += lastOffset - firstOffset + 1;
        if (firstUnflushedAppendMs < 0) {
            firstUnflushedAppendMs = clock.millis();
        }
        if (unflushedRecords >= config.flushMessages()) {
            flushLocked();
        }
    }

    // ------------------------------------------------------------------ flush

    /** Forces the active segment's committed bytes and its indexes to the storage device. */
    public void flush() {
        appendLock.lock();
        try {
            ensureOpen();
            flushLocked();
        } finally {
            appendLock.unlock();
        }
    }

    /** Flushes if the oldest unflushed append is older than {@code flush.ms}; returns whether it did. */
    public boolean flushIfDue() {
        appendLock.lock();
        try {
            if (closed || firstUnflushedAppendMs < 0) {
                return false;
            }
            if (clock.millis() - firstUnflushedAppendMs < config.flushMs()) {
                return false;
            }
            flushLocked();
            return true;
        } finally {
            appendLock.unlock();
        }
    }

    private void flushLocked() {
        active.flush();
        unflushedRecords = 0;
        firstUnflushedAppendMs = -1;
    }

    /** Records appended since the last flush. */
    public long unflushedRecords() {
        appendLock.lock();
        try {
            return unflushedRecords;
        } finally {
            appendLock.unlock();
        }
    }

    // ------------------------------------------------------------------ read

    /**
     * Reads whole batches starting with the one that contains {@code offset}, up to {@code maxBytes} but always at
     * least one batch, from one segment. An offset equal to the log end offset gives an empty result.
     *
     * @throws OffsetOutOfRangeException if {@code offset} is outside {@code [logStartOffset, logEndOffset]}
     */
    public LogReadResult read(final long offset, final int maxBytes) {
        long target = offset;
        while (true) {
            final long end = logEndOffset();
            final long start = logStartOffset;
            if (target < start || target > end) {
                throw new OffsetOutOfRangeException(name, offset, start, end);
            }
            if (target == end) {
                return LogReadResult.empty(target, end, start);
            }
            ensureOpen();
            final Map.Entry<Long, LogSegment> entry = segments.floorEntry(target);
            if (entry == null) {
                continue; // retention moved the start while we looked; the range check above decides
            }
            final SegmentLease lease = entry.getValue().tryAcquire();
            if (lease == null) {
                continue; // deleted under us: look again
            }
            try {
                final LogReadResult result = readFromSegment(lease, target, maxBytes, end, start);
                if (result != null) {
                    return result;
                }
            } catch (final RuntimeException ex) {
                lease.close();
                throw ex;
            }
            lease.close();
            // The offset lies in a gap after this segment's last batch (only after recovery lost data): continue
            // with the first batch of the next segment, as Kafka does for holes.
            final Long higher = segments.higherKey(entry.getKey());
            if (higher == null) {
                return LogReadResult.empty(target, end, start);
            }
            target = higher;
        }
    }

    private LogReadResult readFromSegment(
            final SegmentLease lease,
            final long target,
            final int maxBytes,
            final long highWatermark,
            final long start) {
        final LogSegment segment = lease.segment();
        final MemorySegment mapping = segment.mapping();
        final long limit = segment.committedPosition();
        long pos = segment.offsetIndex().lookupPosition(target);
        while (pos < limit) {
            if (RecordBatchDescriptor.lastOffset(mapping, pos) >= target) {
                break;
            }
            pos += RecordBatchDescriptor.batchSize(mapping, pos);
        }
        if (pos >= limit) {
            return null;
        }
        final long firstOffset = RecordBatchDescriptor.baseOffset(mapping, pos);
        long endPos = pos + RecordBatchDescriptor.batchSize(mapping, pos);
        long nextOffset = RecordBatchDescriptor.lastOffset(mapping, pos) + 1;
        while (endPos < limit) {
            final long size = RecordBatchDescriptor.batchSize(mapping, endPos);
            if (endPos + size - pos > maxBytes) {
                break;
            }
            nextOffset = RecordBatchDescriptor.lastOffset(mapping, endPos) + 1;
            endPos += size;
        }
        return new LogReadResult(
                lease, lease.slice(pos, endPos - pos), pos, firstOffset, nextOffset, highWatermark, start);
    }

    /**
     * The base offset of the first batch whose max timestamp is at least {@code timestamp} (Kafka's ListOffsets; a
     * batch is the unit, so records before the target inside that batch are included), empty if there is none.
     * {@link #LATEST_TIMESTAMP} and {@link #EARLIEST_TIMESTAMP} give the log end and start offsets.
     */
    public OptionalLong offsetForTimestamp(final long timestamp) {
        if (timestamp == LATEST_TIMESTAMP) {
            return OptionalLong.of(logEndOffset());
        }
        if (timestamp == EARLIEST_TIMESTAMP) {
            return OptionalLong.of(logStartOffset);
        }
        ensureOpen();
        for (final LogSegment segment : segments.values()) {
            if (segment.maxTimestamp() < timestamp) {
                continue;
            }
            try (SegmentLease lease = segment.tryAcquire()) {
                if (lease == null) {
                    continue;
                }
                final MemorySegment mapping = segment.mapping();
                final long limit = segment.committedPosition();
                final long startOffset = segment.timeIndex().lookupStartOffset(timestamp);
                long pos = segment.offsetIndex().lookupPosition(startOffset);
                while (pos < limit) {
                    final long batchMax =
                            mapping.get(RecordBatchDescriptor.INT64, pos + RecordBatchDescriptor.MAX_TIMESTAMP_OFFSET);
                    if (batchMax >= timestamp) {
                        return OptionalLong.of(RecordBatchDescriptor.baseOffset(mapping, pos));
                    }
                    pos += RecordBatchDescriptor.batchSize(mapping, pos);
                }
            }
        }
        return OptionalLong.empty();
    }

    // ------------------------------------------------------------------ retention

    /**
     * Deletes the oldest sealed segments that {@code log.retention.ms} or {@code log.retention.bytes} no longer keep,
     * never the active one, and advances the log start offset. A deleted segment stays mapped until its last lease is
     * closed. Returns how many segments were deleted.
     */
    public int deleteOldSegments() {
        appendLock.lock();
        try {
            if (closed) {
                return 0;
            }
            final long nowMs = clock.millis();
            long size = sizeInBytes();
            final List<LogSegment> doomed = new ArrayList<>();
            for (final LogSegment segment : segments.values()) {
                if (segment == active) {
                    break;
                }
                final boolean expired =
                        config.retentionMs() >= 0 && nowMs - largestTimestamp(segment) > config.retentionMs();
                final boolean oversized =
                        config.retentionBytes() >= 0 && size - segment.committedPosition() >= config.retentionBytes();
                if (!expired && !oversized) {
                    break;
                }
                LOG.info(
                        "retention deletes segment: partition={} baseOffset={} nextOffset={} size={} expired={}"
                                + " oversized={} logSize={}",
                        name,
                        segment.baseOffset(),
                        segment.nextOffset(),
                        segment.committedPosition(),
                        expired,
                        oversized,
                        size);
                size -= segment.committedPosition();
                doomed.add(segment);
            }
            for (final LogSegment segment : doomed) {
                final Long next = segments.higherKey(segment.baseOffset());
                logStartOffset = next;
                segments.remove(segment.baseOffset());
                segment.markDeleted();
            }
            if (!doomed.isEmpty()) {
                LOG.info("log start offset advanced: partition={} logStartOffset={}", name, logStartOffset);
            }
            return doomed.size();
        } catch (final IOException ex) {
            throw new UncheckedIOException("retention failed: partition=" + name, ex);
        } finally {
            appendLock.unlock();
        }
    }

    private static long largestTimestamp(final LogSegment segment) throws IOException {
        final long max = segment.maxTimestamp();
        return max >= 0 ? max : Files.getLastModifiedTime(segment.logFile()).toMillis();
    }

    // ------------------------------------------------------------------ lifecycle

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("log is closed: partition=" + name);
        }
    }

    public boolean isClosed() {
        return closed;
    }

    /**
     * Clean shutdown: flushes, trims the active segment's indexes, releases every segment (open leases keep theirs
     * mapped until they close) and writes the clean-shutdown marker so the next open skips the full scan.
     */
    @Override
    public void close() {
        appendLock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            for (final LogSegment segment : segments.values()) {
                segment.closeClean();
            }
            Files.createFile(dir.resolve(LogFileNames.CLEAN_SHUTDOWN_FILE));
            decompressor.close();
            LOG.info("log closed cleanly: partition={} logEndOffset={}", name, logEndOffset());
        } catch (final IOException ex) {
            throw new UncheckedIOException("clean close failed: partition=" + name, ex);
        } finally {
            appendLock.unlock();
        }
    }

    /**
     * Deletes the whole partition: every segment is marked deleted (files renamed, removed when their last lease
     * ends) and the directory is removed once empty. Returns whether the directory is gone already.
     */
    public boolean delete() {
        appendLock.lock();
        try {
            if (!closed) {
                closed = true;
                for (final LogSegment segment : new ArrayList<>(segments.values())) {
                    segments.remove(segment.baseOffset());
                    segment.markDeleted();
                }
                decompressor.close();
                LOG.info("partition deleted: partition={} dir={}", name, dir);
            }
            return deleteDirectoryIfEmpty(dir);
        } catch (final IOException ex) {
            throw new UncheckedIOException("delete failed: partition=" + name, ex);
        } finally {
            appendLock.unlock();
        }
    }

    static boolean deleteDirectoryIfEmpty(final Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return true;
        }
        Files.deleteIfExists(dir.resolve(LogFileNames.CLEAN_SHUTDOWN_FILE));
        try (var files = Files.list(dir)) {
            if (files.findAny().isPresent()) {
                return false;
            }
        }
        Files.delete(dir);
        return true;
    }

    @Override
    public String toString() {
        return "PartitionLog{name=" + name + ", logStartOffset=" + logStartOffset + ", logEndOffset=" + logEndOffset()
                + ", segments=" + segments.size() + '}';
    }
}
