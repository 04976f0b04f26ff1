package io.isthmus.broker.log;

import io.isthmus.broker.producer.ProducerRejectedException;
import io.isthmus.broker.producer.ProducerStateTable;
import io.isthmus.broker.producer.ProducerStateTable.Verdict;
import io.isthmus.protocol.record.BatchDecompressor;
import io.isthmus.protocol.record.BatchSummary;
import io.isthmus.protocol.record.EndTransactionMarker;
import io.isthmus.protocol.record.InvalidRecordBatchException;
import io.isthmus.protocol.record.RecordBatch;
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
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log of one topic partition: an ordered set of {@link LogSegment}s in {@code <log.dirs>/<topic>-<partition>/}, of
 * which the last is active (takes appends) and all others are sealed.
 *
 * <p><b>The append gateway.</b> Every producer path ends here, under one lock per partition (the {@link
 * #appendLock() append lock}, which {@code Partition} also takes to route an append and to hand writing to RDMA in one
 * step): TCP produce copies batches to the tail ({@link #append}); RDMA produce, exclusive or shared, copies each batch
 * from the producer's staging slot to the tail and commits the copy ({@link #commitStagedBatch}), and TCP batches that
 * shared RDMA produce placed at the tail are {@link #commitWritten committed} where they are. Either way each
 * batch is validated once into a {@link BatchSummary} that every later step trusts, the idempotent-producer state is
 * checked for every transport (a retried batch is answered with its original offsets, never appended twice), and an
 * append's batches go to the log all or none. Base offsets and the leader epoch are assigned in place: the fields lie
 * outside the CRC. Roll, retention, flush and close take the same lock.
 *
 * <p><b>Readers</b> ({@link #read}, {@link #offsetForTimestamp}, the offset getters) take no lock: they load the log
 * end offset with acquire semantics, find the segment in a {@link ConcurrentSkipListMap}, take a lease on it and read
 * only below its committed position, which the appender publishes with release semantics after the batch bytes and the
 * rewritten base offsets. Readers therefore only ever see whole, committed batches.
 *
 * <p><b>Leader epochs.</b> Every batch carries the leader epoch it was first appended in, and a {@link
 * LeaderEpochCache} says where each epoch begins: a leader stamps its epoch ({@link #append}), a follower keeps the
 * leader's ({@link #appendAsFollower}), and a replica that became leader {@link #assignLeaderEpoch assigns} its epoch
 * the log end offset. A follower whose log diverged from its new leader's {@link #truncateTo truncates} where the
 * leader says its last common epoch ends (KIP-101, KIP-279); the producer and transaction state is read again from
 * what remains.
 *
 * <p><b>High watermark.</b> A partition of one replica has none of its own: it is the log end offset. A replicated
 * partition {@link #trackHighWatermark tracks} one, which only moves forward ({@link #advanceHighWatermark}: the
 * leader from its in-sync replicas' progress, a follower from its leader's answers) and which consumers read below.
 */
public final class PartitionLog implements AutoCloseable {
    /** {@link #offsetForTimestamp} target meaning "the log end offset" (Kafka's LATEST_TIMESTAMP). */
    public static final long LATEST_TIMESTAMP = -1L;
    /** {@link #offsetForTimestamp} target meaning "the log start offset" (Kafka's EARLIEST_TIMESTAMP). */
    public static final long EARLIEST_TIMESTAMP = -2L;

    private static final Logger LOG = LoggerFactory.getLogger(PartitionLog.class);
    private static final Verdict APPEND = new Verdict.Append();
    private static final long FOLLOWS_LOG_END = -1L;
    private static final int REBUILD_READ_BYTES = 1 << 20;
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
    /** Bounded by {@code message.max.bytes} and given back after each append (see {@link #validate}). */
    private final BatchDecompressor decompressor;
    /** The batches of the append in progress, validated once (append lock). */
    private final ValidatedBatches validated = new ValidatedBatches();
    /** Idempotent producers' last batches, checked on every append whatever the transport (append lock). */
    private final ProducerStateTable producers = new ProducerStateTable();
    /** Open and aborted transactions, derived from transactional batches and markers (append lock; see the class). */
    private final TransactionIndex transactions = new TransactionIndex();
    /** Where each leader epoch begins; derived from the batches (see {@link LeaderEpochCache}). */
    private final LeaderEpochCache epochs;
    /** Asked before a producer's first transactional batch of a transaction enters this log. */
    private volatile TransactionVerifier transactionVerifier = TransactionVerifier.ACCEPT_ALL;

    @SuppressWarnings("unused") // accessed through LOG_END_OFFSET
    private long logEndOffset;

    private volatile long logStartOffset;
    /** The high watermark of a replicated partition; {@link #FOLLOWS_LOG_END} for a partition of one replica. */
    private volatile long trackedHighWatermark = FOLLOWS_LOG_END;
    /** A checkpointed high watermark from before a restart, or -1; see {@link #restoreHighWatermark}. */
    private volatile long restoredHighWatermark = -1;

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
        this.epochs = new LeaderEpochCache(name);
        this.decompressor = new BatchDecompressor(
                Math.min(BatchDecompressor.DEFAULT_INITIAL_CAPACITY, config.messageMaxBytes()),
                config.messageMaxBytes());
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
        final PartitionLog log = new PartitionLog(name, dir, config, ids, clock, preToucher, recovered);
        log.rebuildStateFromLog();
        return log;
    }

    /**
     * Reads back from the log what it implies: the idempotent producers' last batches, so their retries are still
     * recognised; the transactions, open and aborted; and where each leader epoch begins.
     */
    private void rebuildStateFromLog() {
        producers.clear();
        transactions.clear();
        epochs.clear();
        long offset = logStartOffset;
        final RecordBatch view = new RecordBatch();
        int batches = 0;
        while (offset < logEndOffset()) {
            try (LogReadResult result = read(offset, REBUILD_READ_BYTES)) {
                if (result.isEmpty()) {
                    break;
                }
                final MemorySegment records = result.records();
                long position = 0;
                while (position < records.byteSize()) {
                    view.wrap(records, position);
                    if (view.partitionLeaderEpoch() >= 0) {
                        epochs.assign(view.partitionLeaderEpoch(), view.baseOffset());
                    }
                    if (view.isControl()) {
                        final short type = EndTransactionMarker.controlType(records, position);
                        if (type != EndTransactionMarker.UNKNOWN) {
                            producers.markerAppended(
                                    view.producerId(),
                                    view.producerEpoch(),
                                    EndTransactionMarker.coordinatorEpoch(records, position));
                            transactions.onMarker(
                                    view.producerId(), view.baseOffset(), type == EndTransactionMarker.ABORT);
                        }
                    } else if (view.producerId() >= 0) {
                        producers.appended(
                                view.producerId(),
                                view.producerEpoch(),
                                view.baseSequence(),
                                view.lastSequence(),
                                view.baseOffset(),
                                view.lastOffset());
                        if (view.isTransactional()) {
                            transactions.onTransactionalBatch(view.producerId(), view.baseOffset());
                        }
                    }
                    batches++;
                    position += view.sizeInBytes();
                }
                offset = result.nextOffset();
            }
        }
        if (producers.producerCount() > 0) {
            LOG.info(
                    "rebuilt state of {} idempotent producers from {} batches: partition={} openTransactions={}"
                            + " abortedTransactions={}",
                    producers.producerCount(),
                    batches,
                    name,
                    transactions.openCount(),
                    transactions.abortedCount());
        }
    }

    // ------------------------------------------------------------------ offsets

    public String name() {
        return name;
    }

    /**
     * The partition's one append lock (reentrant). {@code Partition} holds it while it decides where a TCP produce goes
     * and while RDMA takes or gives back writing, so no append is half done across either.
     */
    public ReentrantLock appendLock() {
        return appendLock;
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

    /**
     * The offset below which every in-sync replica holds the log, never past the log end; the log end offset itself
     * for a partition of one replica.
     */
    public long highWatermark() {
        final long tracked = trackedHighWatermark;
        final long end = logEndOffset();
        return tracked == FOLLOWS_LOG_END ? end : Math.min(tracked, end);
    }

    /**
     * The partition is replicated from now on: the high watermark is tracked apart from the log end offset. It starts
     * the first time at the value checkpointed before a restart ({@link #restoreHighWatermark}), within the log, or
     * else at the log start offset (nothing is known to be replicated), and keeps its value across later role changes.
     */
    public void trackHighWatermark() {
        appendLock.lock();
        try {
            if (trackedHighWatermark == FOLLOWS_LOG_END) {
                final long restored = restoredHighWatermark;
                trackedHighWatermark =
                        restored < 0 ? logStartOffset : Math.max(logStartOffset, Math.min(restored, logEndOffset()));
            }
        } finally {
            appendLock.unlock();
        }
    }

    /**
     * The high watermark a checkpoint kept across a restart ({@link HighWatermarkCheckpoint}): where tracking starts
     * when the partition turns out to be replicated; no effect on a high watermark tracked already.
     */
    public void restoreHighWatermark(final long checkpointed) {
        restoredHighWatermark = checkpointed;
    }

    /** The partition has one replica again: the high watermark is the log end offset. */
    public void highWatermarkFollowsLogEnd() {
        synchronized (this) {
            trackedHighWatermark = FOLLOWS_LOG_END;
        }
    }

    /** Whether the high watermark is tracked apart from the log end ({@link #trackHighWatermark}). */
    public boolean tracksHighWatermark() {
        return trackedHighWatermark != FOLLOWS_LOG_END;
    }

    /**
     * Moves a tracked high watermark forward to {@code candidate}, capped at the log end offset; a lower candidate
     * changes nothing. Returns whether it moved.
     */
    public boolean advanceHighWatermark(final long candidate) {
        final long capped = Math.min(candidate, logEndOffset());
        synchronized (this) {
            final long current = trackedHighWatermark;
            if (current == FOLLOWS_LOG_END || capped <= current) {
                return false;
            }
            trackedHighWatermark = capped;
            return true;
        }
    }

    /**
     * Where a one-sided reader of {@code segment} (a metadata slot's readable end) may read up to: the segment's
     * committed end while the high watermark follows the log end; in a replicated partition, the end of its last batch
     * below the high watermark, so that, as a Fetch is, a reader is never handed a batch that some in-sync replica does
     * not hold and a failover could take back. Each batch a follower holds ends where it does on the leader, so the
     * high watermark is a batch boundary; a batch it falls inside of would not be readable.
     */
    public long readablePosition(final LogSegment segment) {
        final long end = segment.committedPosition();
        if (!tracksHighWatermark()) {
            return end;
        }
        final long highWatermark = highWatermark();
        if (highWatermark <= segment.baseOffset()) {
            return 0;
        }
        final MemorySegment mapping = segment.mapping();
        long position = segment.offsetIndex().lookupPosition(highWatermark);
        while (position < end && RecordBatchDescriptor.lastOffset(mapping, position) < highWatermark) {
            position += RecordBatchDescriptor.batchSize(mapping, position);
        }
        return Math.min(position, end);
    }

    /**
     * The last stable offset: the first offset of the oldest open transaction, or the high watermark when none is
     * open. A {@code read_committed} consumer reads below it only.
     */
    public long lastStableOffset() {
        // The high watermark first: a transaction's first offset is recorded before the end offset that covers it is
        // published, so a reader never sees that end without the transaction.
        final long highWatermark = highWatermark();
        return Math.min(highWatermark, transactions.firstUnstableOffset());
    }

    /**
     * The aborted transactions with data in {@code [fetchOffset, upperBoundOffset)}, in marker order, for a {@code
     * read_committed} fetch.
     */
    public List<AbortedTransaction> abortedTransactions(final long fetchOffset, final long upperBoundOffset) {
        return transactions.collect(fetchOffset, upperBoundOffset);
    }

    /** Whether some producer has a transaction open in this log. */
    public boolean hasOpenTransactions() {
        appendLock.lock();
        try {
            return transactions.openCount() > 0;
        } finally {
            appendLock.unlock();
        }
    }

    /** Sets who is asked before transactional data enters this log (the broker's transaction coordinator). */
    public void verifyTransactionsWith(final TransactionVerifier verifier) {
        this.transactionVerifier = verifier;
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
     * Appends batches arriving over TCP: validates each once (CRC-32C, header, records) into a summary, checks the
     * idempotent-producer state of all of them, copies them to the tail, assigns base offsets and {@code leaderEpoch}
     * in place and publishes. All or nothing: no byte is written before every batch has passed both checks. Batches
     * that repeat ones already in the log (a producer's retry) are not written again; if all of them do, the answer
     * is {@link AppendInfo#duplicate() the original's offsets}. Batches that do not fit the active segment go to a new
     * one.
     *
     * @throws InvalidRecordBatchException if any batch is invalid (nothing is appended)
     * @throws RecordBatchTooLargeException if one batch is larger than {@code message.max.bytes} or a segment, or
     *     decompresses to more than {@code message.max.bytes} (nothing is appended)
     * @throws ProducerRejectedException on a sequence gap or a fenced epoch (nothing is appended)
     */
    public AppendInfo append(final MemorySegment batches, final int leaderEpoch) {
        return append(batches, leaderEpoch, AppendOrigin.CLIENT);
    }

    /**
     * {@link #append(MemorySegment, int)} for {@code origin}: only the {@link AppendOrigin#COORDINATOR} may append
     * control batches (transaction markers).
     */
    public AppendInfo append(final MemorySegment batches, final int leaderEpoch, final AppendOrigin origin) {
        final long size = batches.byteSize();
        if (size == 0) {
            throw new IllegalArgumentException("empty append: partition=" + name);
        }
        appendLock.lock();
        try {
            ensureOpen();
            validate(batches, 0, size, RecordBatchValidator.Mode.PRODUCE);
            final AppendInfo duplicate = admit(validated, false, origin);
            if (duplicate != null) {
                return duplicate;
            }
            return copyAndCommit(batches, leaderEpoch, false);
        } catch (final IOException ex) {
            throw new UncheckedIOException("append failed: partition=" + name, ex);
        } finally {
            appendLock.unlock();
        }
    }

    /**
     * Appends batches a follower fetched from its leader as they are: their base offsets and leader epochs are kept
     * (the first must be this log's end offset, and each the one after its predecessor), each is validated as a stored
     * batch, and the producer and transaction state follow them without being checked: the leader already did. Control
     * batches (transaction markers) are taken too.
     *
     * @throws UnexpectedAppendOffsetException if the batches do not continue this log (nothing is appended)
     * @throws InvalidRecordBatchException if any batch is invalid (nothing is appended)
     */
    public AppendInfo appendAsFollower(final MemorySegment batches) {
        final long size = batches.byteSize();
        if (size == 0) {
            throw new IllegalArgumentException("empty append: partition=" + name);
        }
        appendLock.lock();
        try {
            ensureOpen();
            validate(batches, 0, size, RecordBatchValidator.Mode.STORED);
            long expected = logEndOffset();
            for (int i = 0; i < validated.count(); i++) {
                final BatchSummary batch = validated.get(i);
                final long baseOffset = RecordBatchDescriptor.baseOffset(batches, batch.position());
                if (baseOffset != expected) {
                    throw new UnexpectedAppendOffsetException(name, i, baseOffset, expected);
                }
                expected = baseOffset + batch.offsetCount();
            }
            return copyAndCommit(batches, LeaderEpochCache.UNDEFINED_EPOCH, true);
        } catch (final IOException ex) {
            throw new UncheckedIOException("follower append failed: partition=" + name, ex);
        } finally {
            appendLock.unlock();
        }
    }

    /**
     * Copies the admitted batches of {@link #validated} to the tail in groups that fit a segment, and commits; {@code
     * replicated} batches keep their offsets and epochs, others get the next offsets and {@code leaderEpoch}.
     */
    private AppendInfo copyAndCommit(final MemorySegment batches, final int leaderEpoch, final boolean replicated)
            throws IOException {
        final int count = validated.count();
        AppendInfo first = null;
        AppendInfo last = null;
        int batchCount = 0;
        long bytes = 0;
        long maxTimestamp = RecordBatchDescriptor.NO_TIMESTAMP;
        int index = 0;
        try {
            while (index < count) {
                if (validated.isDuplicate(index)) {
                    index++;
                    continue;
                }
                // Greedy group of consecutive admitted batches that fits one segment.
                final long from = validated.get(index).position();
                long groupSize = 0;
                long groupOffsets = 0;
                int groupEnd = index;
                while (groupEnd < count && !validated.isDuplicate(groupEnd)) {
                    final BatchSummary summary = validated.get(groupEnd);
                    if (groupSize + summary.sizeInBytes() > config.segmentBytes()) {
                        break;
                    }
                    groupOffsets += summary.offsetCount();
                    groupSize += summary.sizeInBytes();
                    groupEnd++;
                }
                final LogSegment segment = segmentFor(groupSize, groupOffsets);
                final int position = segment.tail();
                // Disk first: on a full file system this throws, with nothing written, instead of faulting in the copy.
                segment.reserveForAppend(position + groupSize, groupEnd - index);
                MemorySegment.copy(batches, from, segment.mapping(), position, groupSize);
                last = commit(segment, position, index, groupEnd, leaderEpoch, replicated);
                if (first == null) {
                    first = last;
                }
                batchCount += last.batchCount();
                bytes += groupSize;
                maxTimestamp = Math.max(maxTimestamp, last.maxTimestamp());
                index = groupEnd;
            }
        } catch (final IOException | RuntimeException | Error failure) {
            // A roll or a reservation failed (a full disk): what committed keeps its offsets and its producer state.
            if (replicated) {
                recordReplicatedProducerState(validated, index);
            } else {
                // What did not commit is forgotten, so the producer's retry of it is appended, not refused as pending.
                resolveProducerState(validated, 0, index);
                releaseProducerState(validated, index, count);
            }
            throw failure;
        }
        if (replicated) {
            recordReplicatedProducerState(validated);
        } else {
            resolveProducerState(validated);
        }
        maybeFlushAfterAppend(first.firstOffset(), last.lastOffset());
        // A request that starts with a retried batch is answered with that batch's original offset, as Kafka does.
        return new AppendInfo(
                validated.baseOffset(0),
                last.lastOffset(),
                first.segmentBaseOffset(),
                first.position(),
                (int) Math.min(Integer.MAX_VALUE, bytes),
                maxTimestamp,
                batchCount,
                false);
    }

    /**
     * Commits the one batch already at the active segment's tail (a TCP batch shared RDMA produce copied to its
     * reserved place): its length comes from its header, bounded by the segment. See {@link #commitWritten(int, long,
     * long, int, boolean)}.
     */
    public AppendInfo commitWrittenBatch(
            final int segmentId, final long position, final int leaderEpoch, final boolean sequencesReserved) {
        appendLock.lock();
        try {
            ensureOpen();
            final LogSegment segment = writableTail(segmentId, position);
            final long length = RecordBatchValidator.completeBatchSize(segment.mapping(), position, segment.capacity());
            if (length < 0) {
                // Zeroing the header is enough: recovery and the next writer both stop at a zero header.
                segment.zeroUncommitted(
                        position, Math.min(RecordBatchDescriptor.HEADER_LENGTH, segment.capacity() - position));
                throw new InvalidRecordBatchException(
                        InvalidRecordBatchException.Reason.BATCH_PAST_LIMIT,
                        position,
                        position + RecordBatchDescriptor.LENGTH_OFFSET,
                        "length",
                        "a whole batch within the segment (capacity " + segment.capacity() + ")",
                        "no whole batch at the tail");
            }
            return commitWrittenLocked(segment, position, length, leaderEpoch, sequencesReserved);
        } finally {
            appendLock.unlock();
        }
    }

    /**
     * Copies the one batch an RDMA producer wrote into its staging slot to the active segment's tail, then commits the
     * copy as {@link #commitWrittenBatch} commits a batch written in place. The copy is the integrity boundary: the
     * producer can still write its slot (it keeps the rkey), never the log, so what is validated, acknowledged and read
     * is the copy, and a write to the slot after the copy changes nothing consumers see. The length comes from one read
     * of the staged header's length field, bounded by the slot and the room left in the segment; bytes the producer
     * changes during the copy fail validation of the copy (zeroed, nothing committed).
     *
     * @param staged the producer's staging slot, exactly as large as the biggest batch it may hold
     */
    public AppendInfo commitStagedBatch(
            final int segmentId,
            final long position,
            final MemorySegment staged,
            final int leaderEpoch,
            final boolean sequencesReserved) {
        appendLock.lock();
        try {
            ensureOpen();
            final LogSegment segment = writableTail(segmentId, position);
            final long length = stagedBatchLength(staged, segment.capacity() - position);
            try {
                // The copy faults the pages in for writing: their blocks must exist first (a full disk is SIGBUS).
                segment.reserveForAppend(position + length, 1);
            } catch (final KafkaStorageException ex) {
                throw new SegmentNotWritableException(
                        "no disk space for the batch: partition=" + name + " segmentId=" + segmentId + " position="
                                + position + " length=" + length + " (" + ex.getMessage() + ")",
                        ex);
            }
            MemorySegment.copy(staged, 0, segment.mapping(), position, length);
            return commitWrittenLocked(segment, position, length, leaderEpoch, sequencesReserved);
        } finally {
            appendLock.unlock();
        }
    }

    /**
     * The length of the one batch in a staging slot the producer can still write: one read of the header's length
     * field, so the bound checked is the length copied (what the copy holds is validated afterwards).
     *
     * @param room the most bytes the batch may take where it goes (besides the slot itself)
     * @throws InvalidRecordBatchException if the slot holds no whole batch within the slot and {@code room}
     */
    public static long stagedBatchLength(final MemorySegment staged, final long room) {
        final long bound = Math.min(staged.byteSize(), room);
        final long length = bound < RecordBatchDescriptor.HEADER_LENGTH
                ? -1
                : RecordBatchDescriptor.LOG_OVERHEAD + (long) RecordBatchDescriptor.length(staged, 0);
        if (length < RecordBatchDescriptor.HEADER_LENGTH || length > bound) {
            throw new InvalidRecordBatchException(
                    InvalidRecordBatchException.Reason.BATCH_PAST_LIMIT,
                    0,
                    RecordBatchDescriptor.LENGTH_OFFSET,
                    "length",
                    "a whole batch within the staging slot (" + staged.byteSize()
                            + " bytes) and the room where it goes (" + room + " bytes)",
                    "no whole batch in the slot");
        }
        return length;
    }

    /**
     * Appends the one batch a shared-memory producer left in its staging slot, which it can still write: the batch is
     * copied to the tail first (a new segment where it does not fit the active one) and the copy is validated and
     * committed as {@link #commitStagedBatch} commits an RDMA producer's, so what is validated, acknowledged and read is
     * the copy. A retry of a batch already in the log is answered as a {@link AppendInfo#duplicate() duplicate} with the
     * original's offsets; nothing is written for it.
     *
     * @throws RecordBatchTooLargeException if the batch is larger than {@code message.max.bytes} or a segment, by its
     *     length field (nothing is written), or decompresses to more (zeroed, as {@link InvalidRecordBatchException})
     * @throws InvalidRecordBatchException if the slot holds no valid batch (zeroed, nothing committed)
     * @throws ProducerRejectedException on a sequence gap or a fenced epoch (zeroed, nothing committed)
     * @throws KafkaStorageException if the disk has no room for it (nothing written)
     */
    public AppendInfo appendStaged(final MemorySegment staged, final int leaderEpoch) {
        appendLock.lock();
        try {
            ensureOpen();
            final long length = stagedBatchLength(staged, Long.MAX_VALUE);
            if (length > config.messageMaxBytes() || length > config.segmentBytes()) {
                throw new RecordBatchTooLargeException("batch larger than message.max.bytes or a segment: partition="
                        + name + " batchSize=" + length + " message.max.bytes=" + config.messageMaxBytes()
                        + " segment.bytes=" + config.segmentBytes());
            }
            // The header's count only decides whether relative offsets would run out; the copy is validated below.
            final long offsets = Math.max(1, RecordBatchDescriptor.lastOffsetDelta(staged, 0) + 1L);
            final LogSegment segment = segmentFor(length, offsets);
            final int position = segment.tail();
            segment.reserveForAppend(position + length, 1);
            MemorySegment.copy(staged, 0, segment.mapping(), position, length);
            return commitWrittenLocked(segment, position, length, leaderEpoch, false);
        } catch (final IOException ex) {
            throw new UncheckedIOException("append failed: partition=" + name, ex);
        } finally {
            appendLock.unlock();
        }
    }

    /**
     * Commits batches that were put straight into the active segment's memory at its tail: they are validated in place
     * once, checked against the idempotent-producer state, then given offsets and the epoch and published. If anything
     * is invalid the range is zeroed, nothing is committed and {@link InvalidRecordBatchException} is thrown (the
     * caller revokes the producer's access). A retry of batches already in the log is zeroed and answered as a {@link
     * AppendInfo#duplicate() duplicate} with the original's offsets; a sequence gap or a fenced epoch is zeroed and
     * thrown as {@link ProducerRejectedException}.
     *
     * @param segmentId id of the segment the producer was given (RDMA immediates carry it)
     * @param position where the write started: must be the committed tail (commits are in order)
     * @param length bytes written: whole batches, exactly
     * @param sequencesReserved the batches' sequences were reserved by {@link #reserveSequences} when their place in a
     *     shared order was taken: the commit fills in their offsets instead of checking them again
     * @throws SegmentNotWritableException if the segment is not the active one or the position is not the tail
     */
    public AppendInfo commitWritten(
            final int segmentId,
            final long position,
            final long length,
            final int leaderEpoch,
            final boolean sequencesReserved) {
        appendLock.lock();
        try {
            ensureOpen();
            final LogSegment segment = writableTail(segmentId, position);
            if (length <= 0 || position + length > segment.capacity()) {
                throw new SegmentNotWritableException("write does not fit the segment: partition=" + name
                        + " segmentId=" + segmentId + " position=" + position + " length=" + length + " capacity="
                        + segment.capacity());
            }
            return commitWrittenLocked(segment, position, length, leaderEpoch, sequencesReserved);
        } finally {
            appendLock.unlock();
        }
    }

    /** {@link #commitWritten(int, long, long, int, boolean)} for batches of no reserved sequences. */
    public AppendInfo commitWritten(
            final int segmentId, final long position, final long length, final int leaderEpoch) {
        return commitWritten(segmentId, position, length, leaderEpoch, false);
    }

    private LogSegment writableTail(final int segmentId, final long position) {
        final LogSegment segment = active;
        if (segment.id() != segmentId) {
            throw new SegmentNotWritableException("segment is not the active one: partition=" + name + " segmentId="
                    + segmentId + " activeSegmentId=" + segment.id() + " activeBaseOffset=" + segment.baseOffset());
        }
        if (position != segment.tail()) {
            throw new SegmentNotWritableException("write is not at the committed tail: partition=" + name
                    + " segmentId=" + segmentId + " position=" + position + " committedPosition=" + segment.tail()
                    + " capacity=" + segment.capacity());
        }
        return segment;
    }

    /**
     * Validates the whole batches in {@code [from, limit)} of {@code memory} into {@link #validated}, then gives the
     * decompressor's buffer back if a batch grew it: a large batch costs its memory for its own append only.
     *
     * @throws InvalidRecordBatchException for an invalid batch
     * @throws RecordBatchTooLargeException for a batch over {@code message.max.bytes} (as sent or decompressed) or over
     *     a segment (no roll can make it fit)
     */
    private void validate(
            final MemorySegment memory, final long from, final long limit, final RecordBatchValidator.Mode mode) {
        try {
            validated.validate(memory, from, limit, mode, decompressor);
        } catch (final InvalidRecordBatchException ex) {
            if (ex.reason() == InvalidRecordBatchException.Reason.DECOMPRESSED_TOO_LARGE) {
                throw new RecordBatchTooLargeException("batch decompresses to more than message.max.bytes="
                        + config.messageMaxBytes() + ": partition=" + name + " (" + ex.getMessage() + ")");
            }
            throw ex;
        } finally {
            decompressor.release();
        }
        if (mode == RecordBatchValidator.Mode.STORED) {
            // A replicated batch was taken by the leader, perhaps under a larger limit: a follower copies what its
            // leader has, as Kafka's does.
            return;
        }
        for (int i = 0; i < validated.count(); i++) {
            final long batchSize = validated.get(i).sizeInBytes();
            if (batchSize > config.messageMaxBytes()) {
                throw new RecordBatchTooLargeException("batch larger than message.max.bytes: partition=" + name
                        + " batchSize=" + batchSize + " message.max.bytes=" + config.messageMaxBytes());
            }
            if (batchSize > config.segmentBytes()) {
                throw new RecordBatchTooLargeException("batch larger than a segment: partition=" + name + " batchSize="
                        + batchSize + " log.segment.bytes=" + config.segmentBytes());
            }
        }
    }

    /** The decompressor's buffer now, for tests: back at its initial size between appends. */
    long decompressorCapacity() {
        return decompressor.capacity();
    }

    private AppendInfo commitWrittenLocked(
            final LogSegment segment,
            final long position,
            final long length,
            final int leaderEpoch,
            final boolean sequencesReserved) {
        try {
            validate(segment.mapping(), position, position + length, RecordBatchValidator.Mode.PRODUCE);
        } catch (final InvalidRecordBatchException | RecordBatchTooLargeException ex) {
            segment.zeroUncommitted(position, length);
            LOG.warn(
                    "rejected batches committed at the tail: partition={} segmentId={} position={} length={} reason={}",
                    name,
                    segment.id(),
                    position,
                    length,
                    ex.getMessage());
            if (ex instanceof RecordBatchTooLargeException tooLarge) {
                // The RDMA paths treat every refused batch alike: invalid, zeroed, the writer's access revoked.
                throw new InvalidRecordBatchException(
                        InvalidRecordBatchException.Reason.BATCH_PAST_LIMIT,
                        -1,
                        position,
                        "batch",
                        "at most message.max.bytes=" + config.messageMaxBytes() + " bytes, as written and decompressed",
                        tooLarge.getMessage());
            }
            throw ex;
        }
        final AppendInfo duplicate;
        try {
            refuseTransactionalWrites(validated);
            duplicate = admit(validated, sequencesReserved, AppendOrigin.CLIENT);
        } catch (final ProducerRejectedException ex) {
            segment.zeroUncommitted(position, length);
            throw ex;
        }
        if (duplicate != null) {
            // A retry of batches already in the log: discarded; the producer learns the tail again before its next
            // write.
            segment.zeroUncommitted(position, length);
            return AppendInfo.duplicateOf(duplicate.firstOffset(), duplicate.lastOffset(), length);
        }
        if (anyDuplicate(validated)) {
            // Written in place, a duplicate among new batches cannot be stepped over without leaving a hole.
            releaseProducerState(validated);
            segment.zeroUncommitted(position, length);
            throw new ProducerRejectedException(
                    Errors.DUPLICATE_SEQUENCE_NUMBER,
                    "a write mixes batches already in the log with new ones: partition=" + name + " position="
                            + position + " length=" + length);
        }
        final AppendInfo info;
        try {
            info = commit(segment, (int) position, 0, validated.count(), leaderEpoch, false);
        } catch (final RuntimeException | Error e) {
            // Refused before anything was published (a stale leader epoch): the batches' retry must be let in. Shared
            // produce reserved the sequences itself and lets them go itself.
            if (!sequencesReserved) {
                releaseProducerState(validated);
            }
            segment.zeroUncommitted(position, length);
            throw e;
        }
        resolveProducerState(validated);
        maybeFlushAfterAppend(info.firstOffset(), info.lastOffset());
        return info;
    }

    // ------------------------------------------------------------------ idempotent producers

    /**
     * The idempotent-producer check of one append, for every batch in order: each batch of a producer is checked
     * against the state left by the batches before it, the append's own included (recorded with {@link
     * ProducerStateTable#PENDING} offsets until they commit). Duplicates are marked; if every batch is one, the
     * first's original offsets are returned. A gap or a fenced epoch forgets what this append recorded and throws.
     */
    private AppendInfo admit(
            final ValidatedBatches batches, final boolean sequencesReserved, final AppendOrigin origin) {
        if (sequencesReserved) {
            for (int i = 0; i < batches.count(); i++) {
                checkControlBatch(batches, i, origin);
            }
            return null;
        }
        Verdict.Duplicate firstDuplicate = null;
        int duplicates = 0;
        for (int i = 0; i < batches.count(); i++) {
            final BatchSummary batch = batches.get(i);
            if (batch.isControl()) {
                checkControlBatch(batches, i, origin);
                continue;
            }
            if (!batch.hasProducerId()) {
                continue;
            }
            if (origin == AppendOrigin.COORDINATOR) {
                admitCoordinatorBatch(batches, i);
                continue;
            }
            switch (checkAndRecord(batch)) {
                case Verdict.Append append -> {
                    if (outsideItsTransaction(batch)) {
                        releaseProducerState(batches, i + 1);
                        throw outsideTransaction(batch);
                    }
                }
                case Verdict.Duplicate duplicate -> {
                    LOG.debug(
                            "{}: duplicate batch of producerId={} sequence={} answered with offset={}",
                            name,
                            batch.producerId(),
                            batch.baseSequence(),
                            duplicate.firstOffset());
                    batches.markDuplicate(i);
                    batches.assignBaseOffset(i, duplicate.firstOffset());
                    duplicates++;
                    if (firstDuplicate == null) {
                        firstDuplicate = duplicate;
                    }
                }
                case Verdict.Reject reject -> {
                    releaseProducerState(batches, i);
                    throw new ProducerRejectedException(reject.error(), reject.reason() + " partition=" + name);
                }
            }
        }
        if (duplicates > 0 && duplicates == batches.count()) {
            return AppendInfo.duplicateOf(firstDuplicate.firstOffset(), firstDuplicate.lastOffset(), 0);
        }
        return null;
    }

    /**
     * A data batch a coordinator writes on behalf of a producer (a group coordinator's offsets committed in the
     * producer's transaction) carries no sequence numbers, as in Kafka: only its epoch is checked, and a transactional
     * one must belong to the producer's open transaction as any other. Only its epoch is recorded (a newer one fences
     * the producer's older batches and markers, as the replicas' state does once they append it), never its sequences,
     * so it never passes for a duplicate. Before throwing, forgets what the batches before it recorded.
     */
    private void admitCoordinatorBatch(final ValidatedBatches batches, final int index) {
        final BatchSummary batch = batches.get(index);
        if (producers.checkEpoch(batch.producerId(), batch.producerEpoch()) instanceof Verdict.Reject reject) {
            releaseProducerState(batches, index);
            throw new ProducerRejectedException(reject.error(), reject.reason() + " partition=" + name);
        }
        if (outsideItsTransaction(batch)) {
            releaseProducerState(batches, index);
            throw outsideTransaction(batch);
        }
        producers.epochSeen(batch.producerId(), batch.producerEpoch());
    }

    /** A transactional batch of a producer whose open transaction does not include this partition. */
    private boolean outsideItsTransaction(final BatchSummary batch) {
        return batch.isTransactional() && !mayWriteTransactional(batch);
    }

    private ProducerRejectedException outsideTransaction(final BatchSummary batch) {
        return new ProducerRejectedException(
                Errors.INVALID_TXN_STATE,
                "transactional batch outside a transaction that includes the partition: producerId="
                        + batch.producerId() + " epoch=" + batch.producerEpoch() + " partition=" + name);
    }

    /**
     * A control batch must come from the coordinator, and its epoch must not be older than the producer's: a marker of
     * a fenced epoch is refused, as Kafka refuses it. Before throwing, forgets what the batches before it recorded.
     */
    private void checkControlBatch(final ValidatedBatches batches, final int index, final AppendOrigin origin) {
        final BatchSummary batch = batches.get(index);
        if (!batch.isControl()) {
            return;
        }
        if (origin != AppendOrigin.COORDINATOR) {
            releaseProducerState(batches, index);
            throw new ProducerRejectedException(
                    Errors.INVALID_RECORD,
                    "control batches are written by the transaction coordinator, never produced: partition=" + name
                            + " producerId=" + batch.producerId());
        }
        if (producers.checkMarker(batch.producerId(), batch.producerEpoch(), batches.coordinatorEpoch(index))
                instanceof Verdict.Reject reject) {
            releaseProducerState(batches, index);
            throw new ProducerRejectedException(reject.error(), reject.reason() + " partition=" + name);
        }
    }

    /**
     * The first transactional batch of a producer's transaction in this partition needs its coordinator's word that
     * the partition was added; later ones belong to the transaction already open here.
     */
    private boolean mayWriteTransactional(final BatchSummary batch) {
        return transactions.isOpen(batch.producerId())
                || transactionVerifier.isPartitionInTransaction(batch.producerId(), batch.producerEpoch(), name);
    }

    /**
     * Batches committed at the tail for an RDMA producer or for TCP produce sharing the tail with RDMA producers,
     * must not be transactional: a partition has RDMA writers or open transactions, never both (see the README), so a
     * transaction's marker never has to take a place in an RDMA writer's order.
     */
    private void refuseTransactionalWrites(final ValidatedBatches batches) {
        for (int i = 0; i < batches.count(); i++) {
            final BatchSummary batch = batches.get(i);
            if (batch.isTransactional() || batch.isControl()) {
                throw new ProducerRejectedException(
                        Errors.INVALID_RECORD,
                        "transactional and control batches cannot be written over RDMA: partition=" + name
                                + " producerId=" + batch.producerId());
            }
        }
    }

    private static boolean anyDuplicate(final ValidatedBatches batches) {
        for (int i = 0; i < batches.count(); i++) {
            if (batches.isDuplicate(i)) {
                return true;
            }
        }
        return false;
    }

    /** Forgets what {@link #admit} recorded for the batches before {@code end}: they will not be committed. */
    private void releaseProducerState(final ValidatedBatches batches, final int end) {
        releaseProducerState(batches, 0, end);
    }

    /** Forgets what {@link #admit} recorded for the batches in {@code [from, to)}: they will not be committed. */
    private void releaseProducerState(final ValidatedBatches batches, final int from, final int to) {
        for (int i = from; i < to; i++) {
            final BatchSummary batch = batches.get(i);
            if (batch.hasProducerId() && !batch.isControl() && !batches.isDuplicate(i)) {
                producers.forgetFrom(batch.producerId(), batch.producerEpoch(), batch.baseSequence());
            }
        }
    }

    private void releaseProducerState(final ValidatedBatches batches) {
        releaseProducerState(batches, batches.count());
    }

    /** Records the producer state of batches a follower appended: as the leader's log has it, unchecked. */
    private void recordReplicatedProducerState(final ValidatedBatches batches) {
        recordReplicatedProducerState(batches, batches.count());
    }

    /** As {@link #recordReplicatedProducerState(ValidatedBatches)}, for the batches before {@code end}. */
    private void recordReplicatedProducerState(final ValidatedBatches batches, final int end) {
        for (int i = 0; i < end; i++) {
            final BatchSummary batch = batches.get(i);
            if (batch.isControl()) {
                producers.markerAppended(batch.producerId(), batch.producerEpoch(), batches.coordinatorEpoch(i));
            } else if (batch.hasProducerId()) {
                final long baseOffset = batches.baseOffset(i);
                producers.appended(
                        batch.producerId(),
                        batch.producerEpoch(),
                        batch.baseSequence(),
                        batch.lastSequence(),
                        baseOffset,
                        baseOffset + batch.lastOffsetDelta());
            }
        }
    }

    /** Fills in the offsets {@link #commit} gave the admitted batches. */
    private void resolveProducerState(final ValidatedBatches batches) {
        resolveProducerState(batches, 0, batches.count());
    }

    /** Fills in the offsets {@link #commit} gave the admitted batches in {@code [from, to)}. */
    private void resolveProducerState(final ValidatedBatches batches, final int from, final int to) {
        for (int i = from; i < to; i++) {
            final BatchSummary batch = batches.get(i);
            if (batch.isControl()) {
                producers.markerAppended(batch.producerId(), batch.producerEpoch(), batches.coordinatorEpoch(i));
            } else if (batch.hasProducerId() && !batches.isDuplicate(i)) {
                final long baseOffset = batches.baseOffset(i);
                producers.resolve(
                        batch.producerId(),
                        batch.producerEpoch(),
                        batch.baseSequence(),
                        baseOffset,
                        baseOffset + batch.lastOffsetDelta());
            }
        }
    }

    /**
     * Shared produce, before a TCP batch of an idempotent producer takes its place in the shared order: the check of
     * {@link #append}, and on {@link Verdict.Append} the batch is recorded at once (offsets {@link
     * ProducerStateTable#PENDING}) so that the producer's next pipelined batch is checked against it; its commit
     * ({@code sequencesReserved}) fills in the offsets, {@link #releaseSequences} forgets it. A duplicate of a batch
     * still pending is answered with a retriable error: its offset is not known yet.
     */
    public Verdict reserveSequences(final BatchSummary batch) {
        if (!batch.hasProducerId()) {
            return APPEND;
        }
        appendLock.lock();
        try {
            return checkAndRecord(batch);
        } finally {
            appendLock.unlock();
        }
    }

    /**
     * Checks an idempotent producer's batch against its state and, when it may be appended, records it at once with
     * {@link ProducerStateTable#PENDING} offsets. A duplicate of a batch still pending is refused with a retriable
     * error: its offset is not known yet.
     */
    private Verdict checkAndRecord(final BatchSummary batch) {
        final Verdict verdict =
                producers.check(batch.producerId(), batch.producerEpoch(), batch.baseSequence(), batch.lastSequence());
        if (verdict instanceof Verdict.Duplicate duplicate && duplicate.firstOffset() == ProducerStateTable.PENDING) {
            return new Verdict.Reject(
                    Errors.REQUEST_TIMED_OUT,
                    "the same batch is being committed: producerId=" + batch.producerId() + " sequence="
                            + batch.baseSequence() + "; retry");
        }
        if (verdict instanceof Verdict.Append) {
            producers.appended(
                    batch.producerId(),
                    batch.producerEpoch(),
                    batch.baseSequence(),
                    batch.lastSequence(),
                    ProducerStateTable.PENDING,
                    ProducerStateTable.PENDING);
        }
        return verdict;
    }

    /** A batch whose sequences were {@link #reserveSequences reserved} will not commit: its retry must be accepted. */
    public void releaseSequences(final long producerId, final short epoch, final int firstSequence) {
        if (producerId < 0) {
            return;
        }
        appendLock.lock();
        try {
            producers.forgetFrom(producerId, epoch, firstSequence);
        } finally {
            appendLock.unlock();
        }
    }

    /** Idempotent producers this log knows (rebuilt from the log at open). */
    public int producerCount() {
        appendLock.lock();
        try {
            return producers.producerCount();
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
        // The new segment first: if it cannot be had (no segment id, no mapping), the old one stays active and
        // unsealed, so appends that fit it go on and the next roll tries again.
        final LogSegment fresh = LogSegment.create(dir, newBase, ids, config.segmentBytes(), config);
        old.seal();
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

    /**
     * Assigns offsets and epoch to the validated batches {@code [from, to)}, which lie back to back from {@code position}
     * in {@code segment}, indexes and publishes them. Trusts their summaries: no header field is read again. {@code
     * replicated} batches keep the offsets and epochs they have (their offsets were checked to continue the log).
     */
    private AppendInfo commit(
            final LogSegment segment,
            final int position,
            final int from,
            final int to,
            final int leaderEpoch,
            final boolean replicated) {
        final MemorySegment mapping = segment.mapping();
        final long firstOffset = logEndOffset();
        if (!replicated && leaderEpoch != epochs.latestEpoch()) {
            if (leaderEpoch < epochs.latestEpoch()) {
                // Nothing is published: the copied bytes past the tail are written over by the next append.
                throw new IllegalStateException("append stamped with an older leader epoch than the log's newest:"
                        + " partition=" + name + " leaderEpoch=" + leaderEpoch + " latestEpoch="
                        + epochs.latestEpoch() + " logEndOffset=" + firstOffset);
            }
            epochs.assign(leaderEpoch, firstOffset);
        }
        long next = firstOffset;
        long largestTimestamp = segment.maxTimestamp();
        long appendedMaxTimestamp = RecordBatchDescriptor.NO_TIMESTAMP;
        long pos = position;
        for (int i = from; i < to; i++) {
            final BatchSummary batch = validated.get(i);
            final int size = (int) batch.sizeInBytes();
            if (replicated) {
                final int epoch = RecordBatchDescriptor.partitionLeaderEpoch(mapping, pos);
                if (epoch >= 0 && epoch != epochs.latestEpoch()) {
                    epochs.assign(epoch, next);
                }
            } else {
                RecordBatchDescriptor.baseOffset(mapping, pos, next);
                RecordBatchDescriptor.partitionLeaderEpoch(mapping, pos, leaderEpoch);
            }
            validated.assignBaseOffset(i, next);
            trackTransaction(batch, mapping, pos, next);
            segment.indexBatch(next, (int) pos, size, largestTimestamp);
            largestTimestamp = Math.max(largestTimestamp, batch.maxTimestamp());
            appendedMaxTimestamp = Math.max(appendedMaxTimestamp, batch.maxTimestamp());
            next += batch.offsetCount();
            pos += size;
        }
        // Bytes and offset rewrites above, then the segment's committed position, then the log end offset: each a
        // release store, so whoever sees the new end offset also sees the position and the bytes.
        segment.publish((int) pos, next, appendedMaxTimestamp, clock.millis());
        LOG_END_OFFSET.setRelease(this, next);
        preToucher.aheadOf(segment);
        return new AppendInfo(
                firstOffset,
                next - 1,
                segment.baseOffset(),
                position,
                (int) (pos - position),
                appendedMaxTimestamp,
                to - from,
                false);
    }

    /**
     * Opens or ends the batch's transaction in {@link #transactions}; runs before the end offset covering the batch is
     * published (see {@link #lastStableOffset}).
     */
    private void trackTransaction(
            final BatchSummary batch, final MemorySegment mapping, final long position, final long baseOffset) {
        if (batch.isControl()) {
            final short type = EndTransactionMarker.controlType(mapping, position);
            if (type != EndTransactionMarker.UNKNOWN) {
                transactions.onMarker(batch.producerId(), baseOffset, type == EndTransactionMarker.ABORT);
            }
        } else if (batch.isTransactional()) {
            transactions.onTransactionalBatch(batch.producerId(), baseOffset);
        }
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

    // ------------------------------------------------------------------ leader epochs and truncation

    /** The newest leader epoch this log has a batch of, or has been assigned as leader; -1 for none. */
    public int latestEpoch() {
        return epochs.latestEpoch();
    }

    /** Where each leader epoch begins in this log, oldest first. */
    public LeaderEpochCache.Entry[] leaderEpochs() {
        return epochs.entries();
    }

    /**
     * Where {@code epoch} ends in this log (see {@link LeaderEpochCache#endOffsetFor}): what a leader answers a
     * follower or a consumer that asks where its last fetched epoch ends (OffsetForLeaderEpoch, a fetch's diverging
     * epoch).
     */
    public LeaderEpochCache.EpochEndOffset endOffsetForEpoch(final int epoch) {
        // The end offset first: an epoch that starts after it was read is newer than any it could be asked about.
        final long end = logEndOffset();
        return epochs.endOffsetFor(epoch, end);
    }

    /** The leader epoch of the batch holding {@code offset} (the newest epoch beginning at or before it), or -1. */
    public int epochAt(final long offset) {
        return epochs.epochAt(offset);
    }

    /**
     * This replica leads the partition from now on in {@code epoch}, which begins at the log end offset even before it
     * has a batch (Kafka's {@code makeLeader}): a follower that asks where the previous epoch ends is told the offset
     * this leader took over at.
     *
     * @throws IllegalArgumentException if {@code epoch} is older than the newest this log knows
     */
    public void assignLeaderEpoch(final int epoch) {
        appendLock.lock();
        try {
            ensureOpen();
            final int latest = epochs.latestEpoch();
            if (epoch < latest) {
                throw new IllegalArgumentException("leader epoch goes back: partition=" + name + " epoch=" + epoch
                        + " latestEpoch=" + latest + " logEndOffset=" + logEndOffset());
            }
            if (epochs.assign(epoch, logEndOffset())) {
                LOG.info("leader epoch begins: partition={} epoch={} startOffset={}", name, epoch, logEndOffset());
            }
        } finally {
            appendLock.unlock();
        }
    }

    /**
     * Removes every batch that holds an offset at or after {@code offset}: a follower whose log diverged from its
     * leader's keeps only what both have in common (KIP-101, KIP-279). A batch that straddles {@code offset} goes whole,
     * so the new log end offset is at most {@code offset}; at or below the log start offset the log is emptied and
     * begins at {@code offset} ({@link #truncateFullyAndStartAt}). Later segments are deleted; the segment the cut falls
     * in is mapped afresh, its bytes past the cut zeroed and forced to disk, and its indexes rebuilt; the producer,
     * transaction and epoch state is read again from what remains.
     *
     * <p>An {@code offset} at or past the log end removes no batch, only epoch entries that begin at or after it (an
     * epoch this replica assigned itself as leader and never wrote).
     *
     * <p>Only a follower truncates, and a follower serves no reader: bytes past the cut may change under a slice taken
     * before it. Readers of the old mapping keep it mapped through their leases.
     *
     * @return the log end offset after the truncation
     */
    public long truncateTo(final long offset) {
        appendLock.lock();
        try {
            ensureOpen();
            final long oldEnd = logEndOffset();
            if (offset >= oldEnd) {
                // No batch goes, but an epoch this replica began as leader at its end, and never wrote, may: it is
                // not the leader's, and a follower that kept it would keep asking about it.
                epochs.truncateFromEnd(oldEnd);
                return oldEnd;
            }
            if (offset <= logStartOffset) {
                startAtLocked(offset);
                return offset;
            }
            final LogSegment cut = segments.floorEntry(offset).getValue();
            final MemorySegment mapping = cut.mapping();
            final long committed = cut.committedPosition();
            long position = cut.offsetIndex().lookupPosition(offset);
            while (position < committed && RecordBatchDescriptor.lastOffset(mapping, position) < offset) {
                position += RecordBatchDescriptor.batchSize(mapping, position);
            }
            // Past the cut segment's last batch (a gap recovery left before the next segment) the log ends where the
            // cut segment does.
            final long newEnd =
                    position < committed ? RecordBatchDescriptor.baseOffset(mapping, position) : cut.nextOffset();
            // Readers stop at the new end at once; what follows is removed under them.
            LOG_END_OFFSET.setRelease(this, newEnd);
            try {
                cutSegmentsLocked(cut, (int) position, newEnd);
            } catch (final IOException | RuntimeException e) {
                // Half cut: the log can no longer be trusted in this process. It is taken offline; recovery at the next
                // start ends it at the zeroed cut, and the follower truncates again by epoch.
                closed = true;
                LOG.error("truncation failed, log taken offline: partition={} offset={}", name, offset, e);
                throw new KafkaStorageException(
                        "truncation failed, log taken offline: partition=" + name + " offset=" + offset, e);
            }
            afterTruncation();
            LOG.info(
                    "truncated: partition={} requestedOffset={} oldLogEndOffset={} logEndOffset={} latestEpoch={}",
                    name,
                    offset,
                    oldEnd,
                    newEnd,
                    epochs.latestEpoch());
            return newEnd;
        } catch (final IOException ex) {
            throw new KafkaStorageException("truncation failed: partition=" + name + " offset=" + offset, ex);
        } finally {
            appendLock.unlock();
        }
    }

    /**
     * Empties the log and makes it begin at {@code offset}: a follower so far behind that its leader no longer has the
     * offsets it would fetch next starts again at the leader's log start offset (Kafka's {@code
     * truncateFullyAndStartAt}).
     */
    public void truncateFullyAndStartAt(final long offset) {
        appendLock.lock();
        try {
            ensureOpen();
            startAtLocked(offset);
        } catch (final IOException ex) {
            throw new KafkaStorageException("truncation failed: partition=" + name + " offset=" + offset, ex);
        } finally {
            appendLock.unlock();
        }
    }

    private void startAtLocked(final long offset) throws IOException {
        if (offset < 0) {
            throw new IllegalArgumentException("negative start offset: partition=" + name + " offset=" + offset);
        }
        final long oldStart = logStartOffset;
        final long oldEnd = logEndOffset();
        LOG_END_OFFSET.setRelease(this, Math.min(oldEnd, offset));
        // The old segments go first: one of them may have the new segment's name.
        for (final LogSegment segment : new ArrayList<>(segments.values())) {
            segments.remove(segment.baseOffset());
            segment.markDeleted();
        }
        final LogSegment fresh = LogSegment.create(dir, offset, ids, config.segmentBytes(), config);
        segments.put(offset, fresh);
        active = fresh;
        logStartOffset = offset;
        LOG_END_OFFSET.setRelease(this, offset);
        afterTruncation();
        LOG.info(
                "truncated fully: partition={} oldLogStartOffset={} oldLogEndOffset={} logStartOffset={}",
                name,
                oldStart,
                oldEnd,
                offset);
    }

    /**
     * Makes {@code cut} end at {@code position} ({@code newEnd}) and the last segment: its replacement is built and
     * checked first, then the later segments are deleted and the replacement takes its place.
     */
    private void cutSegmentsLocked(final LogSegment cut, final int position, final long newEnd) throws IOException {
        final List<LogSegment> later =
                new ArrayList<>(segments.tailMap(cut.baseOffset(), false).values());
        final LogSegment replacement;
        if (position == 0) {
            segments.remove(cut.baseOffset());
            cut.markDeleted();
            replacement = LogSegment.create(dir, newEnd, ids, config.segmentBytes(), config);
        } else {
            // What stays of the cut segment reaches the disk under its flush policy no later than it would have.
            cut.flush();
            replacement = remapTruncated(cut, position, newEnd);
        }
        for (final LogSegment segment : later) {
            segments.remove(segment.baseOffset());
            segment.markDeleted();
        }
        segments.put(replacement.baseOffset(), replacement);
        active = replacement;
        if (position != 0) {
            cut.closeUnclean();
        }
    }

    /**
     * A second mapping of {@code cut}'s files with the batches from {@code position} on zeroed (and forced to disk, so
     * a crash cannot bring them back) and the indexes rebuilt from the batches that remain.
     */
    private LogSegment remapTruncated(final LogSegment cut, final int position, final long newEnd) throws IOException {
        final LogSegment remapped = LogSegment.open(dir, cut.baseOffset(), ids, config.segmentBytes(), config);
        // Unbounded, as recovery's: a batch the log took under a larger message.max.bytes stays readable.
        try (BatchDecompressor unbounded = new BatchDecompressor()) {
            remapped.zeroAndForce(position, cut.committedPosition());
            final LogRecovery.ScanResult result = LogRecovery.rebuild(remapped, unbounded, clock.millis());
            if (result.validEnd() != position || result.nextOffset() != newEnd) {
                throw new IllegalStateException("segment does not end at the cut after truncation: partition=" + name
                        + " baseOffset=" + cut.baseOffset() + " cutPosition=" + position + " cutOffset=" + newEnd
                        + " validEnd=" + result.validEnd() + " nextOffset=" + result.nextOffset() + " stop="
                        + result.stop() + " detail=" + result.detail());
            }
            return remapped;
        } catch (final RuntimeException ex) {
            remapped.closeUnclean();
            throw ex;
        }
    }

    /** What a truncation leaves to redo: the state read again, the flush counters reset, the new tail touched. */
    private void afterTruncation() {
        synchronized (this) {
            if (trackedHighWatermark != FOLLOWS_LOG_END) {
                trackedHighWatermark = Math.min(trackedHighWatermark, logEndOffset());
            }
        }
        rebuildStateFromLog();
        unflushedRecords = 0;
        firstUnflushedAppendMs = -1;
        preToucher.aheadOf(active);
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
        return read(offset, maxBytes, FetchIsolation.LOG_END);
    }

    /**
     * A consumer's {@link #read(long, int)}: below the {@link #highWatermark()}, and with {@code committedOnly}
     * ({@code read_committed}) below the {@link #lastStableOffset()}; an offset at or past that bound gives an empty
     * result.
     */
    public LogReadResult read(final long offset, final int maxBytes, final boolean committedOnly) {
        return read(offset, maxBytes, committedOnly ? FetchIsolation.TXN_COMMITTED : FetchIsolation.HIGH_WATERMARK);
    }

    /** {@link #read(long, int)} up to the bound {@code isolation} names; the result carries the high watermark. */
    public LogReadResult read(final long offset, final int maxBytes, final FetchIsolation isolation) {
        long target = offset;
        while (true) {
            final long highWatermark = highWatermark();
            final long end = logEndOffset();
            final long start = logStartOffset;
            if (target < start || target > end) {
                throw new OffsetOutOfRangeException(name, offset, start, end);
            }
            final long bound =
                    switch (isolation) {
                        case LOG_END -> end;
                        case HIGH_WATERMARK -> highWatermark;
                        case TXN_COMMITTED -> Math.min(highWatermark, transactions.firstUnstableOffset());
                    };
            if (target >= bound) {
                return LogReadResult.empty(target, highWatermark, start);
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
                final LogReadResult result = readFromSegment(lease, target, maxBytes, highWatermark, bound, start);
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
                return LogReadResult.empty(target, highWatermark, start);
            }
            target = higher;
        }
    }

    private LogReadResult readFromSegment(
            final SegmentLease lease,
            final long target,
            final int maxBytes,
            final long highWatermark,
            final long bound,
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
            if (endPos + size - pos > maxBytes || RecordBatchDescriptor.baseOffset(mapping, endPos) >= bound) {
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
                    final long batchMax = RecordBatchDescriptor.maxTimestamp(mapping, pos);
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
                if (segment == active || segment.nextOffset() > highWatermark()) {
                    // Never past the high watermark: what every replica does not hold yet is not the leader's to drop.
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
                transactions.retainFrom(logStartOffset);
                epochs.truncateFromStart(logStartOffset);
                LOG.info("log start offset advanced: partition={} logStartOffset={}", name, logStartOffset);
            }
            return doomed.size();
        } catch (final IOException ex) {
            throw new UncheckedIOException("retention failed: partition=" + name, ex);
        } finally {
            appendLock.unlock();
        }
    }

    /**
     * Deletes the sealed segments that end at or below {@code offset} and advances the log start offset past them (the
     * transaction state log drops what a newer snapshot of every state supersedes). Returns how many were deleted.
     */
    public int deleteSegmentsBelow(final long offset) {
        appendLock.lock();
        try {
            ensureOpen();
            int deleted = 0;
            for (final LogSegment segment : segments.values()) {
                if (segment == active || segment.nextOffset() > offset) {
                    break;
                }
                logStartOffset = segments.higherKey(segment.baseOffset());
                segments.remove(segment.baseOffset());
                segment.markDeleted();
                deleted++;
            }
            if (deleted > 0) {
                transactions.retainFrom(logStartOffset);
                epochs.truncateFromStart(logStartOffset);
                LOG.info(
                        "deleted {} segments below offset {}: partition={} logStartOffset={}",
                        deleted,
                        offset,
                        name,
                        logStartOffset);
            }
            return deleted;
        } catch (final IOException ex) {
            throw new UncheckedIOException("segment deletion failed: partition=" + name, ex);
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
