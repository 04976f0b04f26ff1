package io.isthmus.broker.log;

import io.isthmus.protocol.record.RecordBatchDescriptor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One segment of a partition log: a {@code .log} file preallocated to its capacity and mapped read-write once for its
 * whole life, plus its {@link OffsetIndex} and {@link TimeIndex}, all mapped in one {@link Arena#ofShared() shared
 * arena} that this segment owns.
 *
 * <pre>
 *   0                                     committedPosition                        capacity
 *   +---------+---------+-----+-----------+---------------------------------------+
 *   | batch 0 | batch 1 | ... | batch n   |  zeros (preallocated), or bytes an    |
 *   |         |         |     |           |  RDMA producer wrote but not yet       |
 *   |         |         |     |           |  committed                            |
 *   +---------+---------+-----+-----------+---------------------------------------+
 *   readers trust [0, committedPosition) only
 * </pre>
 *
 * <p><b>Publication.</b> The appender writes the batch bytes and rewrites their base offsets and leader epochs, then
 * stores {@link #committedPosition()} with release semantics; readers load it with acquire semantics and never read
 * past it, so they never see a partial batch.
 *
 * <p><b>Sealing.</b> When the log rolls, the segment is forced to disk, its indexes are trimmed to their entries and
 * remapped read-only, and {@link #isSealed()} turns true (an RDMA consumer is told "sealed, move on"). The {@code .log}
 * file itself is <em>not</em> trimmed: its mapping may be registered with a NIC and handed to remote readers as an
 * address and rkey, and remapping would move it while truncating a mapped file makes any access past the new end fault.
 * The valid length is instead recorded by the trimmed offset index plus zero fill: recovery starts at the last index
 * entry, validates the few batches after it and stops at the first all-zero header. Preallocation (a sparse {@code
 * setLength}) and recovery's truncation both guarantee zeros after the last batch.
 *
 * <p><b>Lifetime.</b> A reference count starts at one for the owning log. Readers and RDMA registrations {@link
 * #tryAcquire() acquire} a {@link SegmentLease}; a lease can only be taken while the count is above zero. Retention
 * {@link #markDeleted() marks} the segment deleted (files renamed to {@code .deleted}) and drops the log's reference;
 * the last release closes the arena, which unmaps the files, and only then deletes them. Any view handed out is scoped
 * to its lease, so memory is never read after it was unmapped.
 *
 * <p>Threads: one appender (the owning log serialises appends, rolls and retention); any number of readers.
 */
public final class LogSegment {
    private static final Logger LOG = LoggerFactory.getLogger(LogSegment.class);
    /** Log bytes reserved on disk at a time ahead of the appender: one posix_fallocate per this much appended. */
    private static final long LOG_RESERVE_CHUNK = 4L << 20;

    private static final VarHandle COMMITTED_POSITION;

    static {
        try {
            COMMITTED_POSITION =
                    MethodHandles.lookup().findVarHandle(LogSegment.class, "committedPosition", long.class);
        } catch (final ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final Path dir;
    private final long baseOffset;
    private final int id;
    private final int capacity;
    private final int indexIntervalBytes;
    private final Arena arena;
    private final FileChannel channel;
    /** Written by the pre-toucher thread, read by the appender: a hint, so plain volatile is enough. */
    private volatile long touchedUpTo;

    private final MemorySegment mapping;
    private final OffsetIndex offsetIndex;
    private final TimeIndex timeIndex;
    private final AtomicInteger references = new AtomicInteger(1);
    private final SegmentIdAllocator ids;
    /** The log file's disk, reserved ahead of the appender and the pre-toucher. */
    private final DiskReservation logSpace;

    @SuppressWarnings("unused") // accessed through COMMITTED_POSITION
    private long committedPosition;

    private volatile long nextOffset;
    private volatile long maxTimestamp = RecordBatchDescriptor.NO_TIMESTAMP;
    private volatile boolean sealed;
    private volatile boolean deleted;
    private long rollBaseMs = -1;
    private int bytesSinceLastIndexEntry;
    private long flushedPosition;

    private LogSegment(
            final Path dir,
            final long baseOffset,
            final int id,
            final int capacity,
            final LogConfig config,
            final Arena arena,
            final FileChannel channel,
            final MemorySegment mapping,
            final OffsetIndex offsetIndex,
            final TimeIndex timeIndex,
            final SegmentIdAllocator ids) {
        this.dir = dir;
        this.ids = ids;
        this.baseOffset = baseOffset;
        this.id = id;
        this.capacity = capacity;
        this.indexIntervalBytes = config.indexIntervalBytes();
        this.arena = arena;
        this.channel = channel;
        this.mapping = mapping;
        this.offsetIndex = offsetIndex;
        this.timeIndex = timeIndex;
        this.nextOffset = baseOffset;
        this.logSpace = new DiskReservation(LogFileNames.logFile(dir, baseOffset), capacity, LOG_RESERVE_CHUNK);
    }

    /**
     * Reserves the disk an append needs before any of it is written: the log's bytes up to {@code end} and room for
     * one entry per batch in each index (the most an append adds). Appender thread.
     *
     * @throws org.apache.kafka.common.errors.KafkaStorageException on a full disk; nothing was written
     */
    void reserveForAppend(final long end, final int batches) {
        logSpace.reserveUpTo(end);
        offsetIndex.reserveEntries(batches);
        timeIndex.reserveEntries(batches);
    }

    /**
     * Reserves the log's bytes up to {@code end}: whoever stores into the mapping outside the append gateway does
     * first (the pre-toucher before it faults pages in for writing; shared RDMA produce before it puts a TCP batch at
     * its reserved place).
     *
     * @throws org.apache.kafka.common.errors.KafkaStorageException on a full disk: nothing may be written there
     */
    public void reserveLog(final long end) {
        logSpace.reserveUpTo(end);
    }

    /** Creates the files of a new, empty segment of {@code capacity} bytes and maps them. */
    static LogSegment create(
            final Path dir,
            final long baseOffset,
            final SegmentIdAllocator ids,
            final int capacity,
            final LogConfig config)
            throws IOException {
        final Path logFile = LogFileNames.logFile(dir, baseOffset);
        if (Files.exists(logFile)) {
            throw new IllegalStateException(
                    "segment file already exists: file=" + logFile + " baseOffset=" + baseOffset);
        }
        Files.deleteIfExists(LogFileNames.indexFile(dir, baseOffset));
        Files.deleteIfExists(LogFileNames.timeIndexFile(dir, baseOffset));
        return map(dir, baseOffset, ids, capacity, config);
    }

    /**
     * Maps the files of an existing segment. The capacity is the file's length, or at least {@code minCapacity} (the
     * configured segment size when this segment will take appends). State is empty until recovery {@link #restore}s
     * it.
     */
    static LogSegment open(
            final Path dir,
            final long baseOffset,
            final SegmentIdAllocator ids,
            final int minCapacity,
            final LogConfig config)
            throws IOException {
        final long fileLength = Files.size(LogFileNames.logFile(dir, baseOffset));
        if (fileLength > Integer.MAX_VALUE) {
            throw new IllegalStateException("segment file larger than 2 GiB: file="
                    + LogFileNames.logFile(dir, baseOffset) + " length=" + fileLength);
        }
        final int capacity = (int) Math.max(Math.max(fileLength, minCapacity), RecordBatchDescriptor.HEADER_LENGTH);
        return map(dir, baseOffset, ids, capacity, config);
    }

    private static LogSegment map(
            final Path dir,
            final long baseOffset,
            final SegmentIdAllocator ids,
            final int capacity,
            final LogConfig config)
            throws IOException {
        final int id = ids.allocate();
        final Arena arena = Arena.ofShared();
        FileChannel channel = null;
        try {
            channel = FileChannel.open(
                    LogFileNames.logFile(dir, baseOffset),
                    StandardOpenOption.CREATE,
                    StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            if (channel.size() < capacity) {
                // Sparse preallocation: the pages read as zeros until written, which ends every recovery scan.
                channel.write(ByteBuffer.allocate(1), capacity - 1L);
            }
            final MemorySegment mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, capacity, arena);
            final OffsetIndex offsetIndex = new OffsetIndex(
                    LogFileNames.indexFile(dir, baseOffset), baseOffset, config.maxOffsetIndexEntries(), arena);
            final TimeIndex timeIndex = new TimeIndex(
                    LogFileNames.timeIndexFile(dir, baseOffset), baseOffset, config.maxTimeIndexEntries(), arena);
            return new LogSegment(
                    dir, baseOffset, id, capacity, config, arena, channel, mapping, offsetIndex, timeIndex, ids);
        } catch (final IOException | RuntimeException ex) {
            ids.release(id);
            arena.close();
            if (channel != null) {
                channel.close();
            }
            throw ex;
        }
    }

    // ------------------------------------------------------------------ what RDMA and readers are told

    /** Base offset: the offset of the first batch, and the name of the files. */
    public long baseOffset() {
        return baseOffset;
    }

    /** 16-bit id, unique among the live segments of the broker; RDMA immediates name a segment by it. */
    public int id() {
        return id;
    }

    /** Size of the mapping in bytes (the preallocated file length). */
    public int capacity() {
        return capacity;
    }

    /** Native address of the mapping, for memory registration. Valid while a lease on the segment is held. */
    public long address() {
        return mapping.address();
    }

    /** End of the last committed batch (acquire): readers never look past it. */
    public long committedPosition() {
        return (long) COMMITTED_POSITION.getAcquire(this);
    }

    /** Offset after the last committed batch. */
    public long nextOffset() {
        return nextOffset;
    }

    /** Largest max timestamp of the committed batches, or -1 when there are none (or none carries one). */
    public long maxTimestamp() {
        return maxTimestamp;
    }

    /** True once the log rolled past this segment: it takes no more appends. */
    public boolean isSealed() {
        return sealed;
    }

    public boolean isDeleted() {
        return deleted;
    }

    public boolean isEmpty() {
        return committedPosition() == 0;
    }

    int indexIntervalBytes() {
        return indexIntervalBytes;
    }

    public OffsetIndex offsetIndex() {
        return offsetIndex;
    }

    public TimeIndex timeIndex() {
        return timeIndex;
    }

    public Path logFile() {
        return LogFileNames.logFile(dir, baseOffset);
    }

    // ------------------------------------------------------------------ leases

    /**
     * A lease that keeps the mapping alive until it is closed, or null when the segment has already been released by
     * its log and its last lease (a reader then looks the offset up again).
     */
    public SegmentLease tryAcquire() {
        int current;
        do {
            current = references.get();
            if (current <= 0) {
                return null;
            }
        } while (!references.compareAndSet(current, current + 1));
        return new SegmentLease(this);
    }

    /** References held: the log's own (while the segment is live) plus one per open lease. */
    int referenceCount() {
        return references.get();
    }

    void release() {
        final int remaining = references.decrementAndGet();
        if (remaining == 0) {
            unmapAndClose();
        } else if (remaining < 0) {
            throw new IllegalStateException(
                    "segment released more often than acquired: baseOffset=" + baseOffset + " id=" + id);
        }
    }

    /** The full mapping; package-private so that only leases and the owning log hold unscoped views. */
    MemorySegment mapping() {
        return mapping;
    }

    FileChannel channel() {
        return channel;
    }

    // ------------------------------------------------------------------ appender side (single thread)

    /** How far the {@link SegmentPreToucher} has faulted the mapping in. */
    long touchedUpTo() {
        return touchedUpTo;
    }

    void touchedUpTo(final long position) {
        touchedUpTo = position;
    }

    /** Where the next batch goes. Appender thread only. */
    int tail() {
        return (int) (long) COMMITTED_POSITION.getAcquire(this);
    }

    int remaining() {
        return capacity - tail();
    }

    /** Time the roll.ms clock runs from: first append in this process, or the first batch's timestamp. */
    long rollBaseMs() {
        return rollBaseMs;
    }

    /**
     * Adds index entries for a batch about to be committed at {@code position}, every {@code log.index.interval.bytes}.
     * {@code largestTimestampBefore} is the largest max timestamp of all batches before this one (committed or earlier
     * in the same append), which is what a time-index entry at this batch promises.
     */
    void indexBatch(final long batchBaseOffset, final int position, final int size, final long largestTimestampBefore) {
        if (bytesSinceLastIndexEntry > indexIntervalBytes) {
            offsetIndex.append(batchBaseOffset, position);
            if (largestTimestampBefore >= 0) {
                timeIndex.maybeAppend(largestTimestampBefore, batchBaseOffset);
            }
            bytesSinceLastIndexEntry = 0;
        }
        bytesSinceLastIndexEntry += size;
    }

    /** Forgets both indexes before recovery rebuilds them. Only before the segment is visible to readers. */
    void clearIndexes() {
        offsetIndex.clear();
        timeIndex.clear();
        bytesSinceLastIndexEntry = 0;
    }

    /**
     * Makes batches up to {@code endPosition} visible: everything they contain (bytes, rewritten base offsets) was
     * written before, and the release store orders it before the new position.
     */
    void publish(final int endPosition, final long newNextOffset, final long batchesMaxTimestamp, final long nowMs) {
        if (rollBaseMs < 0) {
            rollBaseMs = nowMs;
        }
        if (batchesMaxTimestamp > maxTimestamp) {
            maxTimestamp = batchesMaxTimestamp;
        }
        nextOffset = newNextOffset;
        COMMITTED_POSITION.setRelease(this, (long) endPosition);
    }

    /** Recovery's result: the state as found in the files. Only before the segment is visible to readers. */
    void restore(
            final int validEnd,
            final long restoredNextOffset,
            final long restoredMaxTimestamp,
            final int bytesAfterLastIndexEntry,
            final long firstBatchTimestamp,
            final long nowMs) {
        nextOffset = restoredNextOffset;
        maxTimestamp = restoredMaxTimestamp;
        bytesSinceLastIndexEntry = bytesAfterLastIndexEntry;
        rollBaseMs = validEnd == 0 ? -1 : (firstBatchTimestamp >= 0 ? firstBatchTimestamp : nowMs);
        flushedPosition = validEnd;
        COMMITTED_POSITION.setRelease(this, (long) validEnd);
    }

    /**
     * Zeroes the file from {@code position} to the end: truncating and re-extending the file turns that range back
     * into a hole that reads as zeros. Only during recovery, while nothing else reads or writes the mapping.
     */
    void discardFrom(final int position) throws IOException {
        channel.truncate(position);
        channel.write(ByteBuffer.allocate(1), capacity - 1L);
    }

    /** Zeroes bytes someone wrote past the committed position and that were rejected. Appender thread only. */
    void zeroUncommitted(final long position, final long length) {
        if (position < tail()) {
            throw new IllegalStateException("refusing to zero committed bytes: baseOffset=" + baseOffset + " position="
                    + position + " committedPosition=" + tail());
        }
        final long end = Math.min(capacity, position + length);
        if (end > position) {
            mapping.asSlice(position, end - position).fill((byte) 0);
        }
    }

    /**
     * Zeroes {@code [position, end)} and forces the zeros to disk: batches a truncation removed. Only on a mapping
     * that is not yet published (its recovery then finds the end there).
     */
    void zeroAndForce(final long position, final long end) {
        if (end > position) {
            final MemorySegment removed = mapping.asSlice(position, Math.min(capacity, end) - position);
            removed.fill((byte) 0);
            removed.force();
        }
    }

    /** Forces committed but unflushed bytes and the indexes to the storage device. */
    void flush() {
        final int end = tail();
        if (end > flushedPosition) {
            mapping.asSlice(flushedPosition, end - flushedPosition).force();
            flushedPosition = end;
        }
        offsetIndex.flush();
        timeIndex.flush();
    }

    /**
     * Seals the segment: final time-index entry, everything forced, indexes trimmed and remapped read-only. Appender
     * thread, under the log's lock.
     */
    void seal() throws IOException {
        if (sealed) {
            return;
        }
        appendFinalTimeIndexEntry();
        flush();
        offsetIndex.trimAndSeal();
        timeIndex.trimAndSeal();
        logSpace.close();
        sealed = true;
        LOG.debug(
                "sealed segment baseOffset={} id={} nextOffset={} committedPosition={} offsetIndexEntries={}",
                baseOffset,
                id,
                nextOffset,
                tail(),
                offsetIndex.entryCount());
    }

    /**
     * Takes the last entry the time index needs to know the segment's largest timestamp without a scan. On a full disk
     * it is left out: the index is sparse, and a reopen then scans the segment's tail for it.
     */
    void appendFinalTimeIndexEntry() {
        final long largest = maxTimestamp;
        if (largest >= 0) {
            try {
                timeIndex.maybeAppend(largest, nextOffset);
            } catch (final org.apache.kafka.common.errors.KafkaStorageException full) {
                LOG.warn("segment baseOffset={} keeps no final time-index entry: {}", baseOffset, full.getMessage());
            }
        }
    }

    /**
     * Clean shutdown: flush, trim the indexes (a clean open then knows their entry counts) and drop the log's
     * reference. Leases still open keep the mapping until they close.
     */
    void closeClean() throws IOException {
        if (!sealed) {
            appendFinalTimeIndexEntry();
            flush();
            offsetIndex.trimOnClose();
            timeIndex.trimOnClose();
        }
        release();
    }

    /**
     * Drops the log's reference without flushing (crash simulation in tests, or a log that is being abandoned).
     */
    void closeUnclean() {
        release();
    }

    /**
     * Renames the files to {@code .deleted} and drops the log's reference; the files are removed when the last lease
     * ends. The segment must already be out of the log's segment map.
     */
    void markDeleted() throws IOException {
        deleted = true;
        for (final Path file : files()) {
            if (Files.exists(file)) {
                Files.move(
                        file,
                        file.resolveSibling(file.getFileName() + LogFileNames.DELETED_SUFFIX),
                        StandardCopyOption.ATOMIC_MOVE);
            }
        }
        LOG.info(
                "segment scheduled for deletion: baseOffset={} id={} nextOffset={} openLeases={}",
                baseOffset,
                id,
                nextOffset,
                references.get() - 1);
        release();
    }

    private Path[] files() {
        return new Path[] {
            LogFileNames.logFile(dir, baseOffset),
            LogFileNames.indexFile(dir, baseOffset),
            LogFileNames.timeIndexFile(dir, baseOffset)
        };
    }

    private void unmapAndClose() {
        logSpace.close();
        offsetIndex.closeReservation();
        timeIndex.closeReservation();
        arena.close();
        ids.release(id);
        try {
            channel.close();
            if (deleted) {
                for (final Path file : files()) {
                    Files.deleteIfExists(file.resolveSibling(file.getFileName() + LogFileNames.DELETED_SUFFIX));
                }
                LOG.info("segment unmapped and deleted: baseOffset={} id={}", baseOffset, id);
            }
        } catch (final IOException ex) {
            throw new UncheckedIOException("failed to close segment: baseOffset=" + baseOffset + " id=" + id, ex);
        }
    }

    @Override
    public String toString() {
        return "LogSegment{baseOffset=" + baseOffset + ", id=" + id + ", capacity=" + capacity + ", committedPosition="
                + committedPosition() + ", nextOffset=" + nextOffset + ", sealed=" + sealed + ", deleted=" + deleted
                + '}';
    }
}
