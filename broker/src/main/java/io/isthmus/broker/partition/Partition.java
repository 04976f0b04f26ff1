package io.isthmus.broker.partition;

import io.isthmus.broker.log.AppendInfo;
import io.isthmus.broker.log.LogReadResult;
import io.isthmus.broker.log.PartitionLog;
import io.isthmus.broker.log.RecordBatchTooLargeException;
import io.isthmus.broker.log.WrittenBatchAdmission;
import io.isthmus.broker.producer.ProducerStateTable;
import io.isthmus.broker.producer.ProducerStateTable.Verdict;
import io.isthmus.protocol.record.InvalidRecordBatchException;
import io.isthmus.protocol.record.RecordBatch;
import io.isthmus.protocol.record.RecordBatchDescriptor;
import java.lang.foreign.MemorySegment;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A topic partition as the request handlers see it: its log, the idempotent-producer state that guards
 * appends against retried duplicates, and the listeners waiting for the next append (long-poll fetches).
 *
 * <p>Appends are serialised by one lock so that the duplicate check, the append and the state update are
 * one step. Reads go straight to the log, which needs no lock.
 */
public final class Partition implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Partition.class);
    private static final int REBUILD_READ_BYTES = 1 << 20;

    private final TopicPartition topicPartition;
    private final Uuid topicId;
    private final PartitionLog log;
    private final ProducerStateTable producers = new ProducerStateTable();
    private final ReentrantLock appendLock = new ReentrantLock();
    private final Set<Runnable> appendListeners = ConcurrentHashMap.newKeySet();
    private final Set<Runnable> appendObservers = new CopyOnWriteArraySet<>();
    /** An exclusive RDMA producer's session or a {@link SharedAppender}; null while TCP appends directly. */
    private final AtomicReference<Object> rdmaWriter = new AtomicReference<>();

    private final RecordBatch batch = new RecordBatch();
    /** {@link #admitWritten} as an object made once, so a commit allocates nothing. */
    private final WrittenBatchAdmission writtenAdmission = this::admitWritten;
    /** The verdict of the last {@link #admitWritten} (append lock). */
    private Verdict writtenVerdict;

    private Partition(final TopicPartition topicPartition, final Uuid topicId, final PartitionLog log) {
        this.topicPartition = topicPartition;
        this.topicId = topicId;
        this.log = log;
    }

    /** Wraps an opened log and rebuilds producer state from the batches it holds. */
    public static Partition open(final TopicPartition topicPartition, final Uuid topicId, final PartitionLog log) {
        final Partition partition = new Partition(topicPartition, topicId, log);
        partition.rebuildProducerState();
        return partition;
    }

    /** The outcome of a produce to this partition. */
    public record ProduceOutcome(Errors error, long baseOffset, String message) {
        static ProduceOutcome appended(final long baseOffset) {
            return new ProduceOutcome(Errors.NONE, baseOffset, null);
        }
    }

    /**
     * Appends the batches a client sent, batch by batch, skipping those an idempotent producer already
     * appended (their original base offset is answered, as Kafka does). Invalid input appends nothing of the
     * invalid batch and is answered with an error; earlier batches of the same request stay appended.
     */
    public ProduceOutcome appendFromClient(final MemorySegment batches) {
        return appendFromClientAsync(batches).join();
    }

    /**
     * {@link #appendFromClient} for the request handlers: done at once, or, while RDMA producers share the partition,
     * once the {@link SharedAppender} has committed the batches in the shared order ({@code batches} must stay valid
     * until then).
     */
    public CompletableFuture<ProduceOutcome> appendFromClientAsync(final MemorySegment batches) {
        appendLock.lock();
        try {
            final Object writer = rdmaWriter.get();
            if (writer instanceof SharedAppender shared) {
                return shared.append(this, batches);
            }
            if (writer != null) {
                return CompletableFuture.completedFuture(new ProduceOutcome(
                        Errors.POLICY_VIOLATION,
                        -1,
                        "partition is written by an exclusive RDMA producer: partition=" + topicPartition + " writer="
                                + writer));
            }
            return CompletableFuture.completedFuture(appendLocked(batches));
        } finally {
            appendLock.unlock();
        }
    }

    private ProduceOutcome appendLocked(final MemorySegment batches) {
        {
            long firstOffset = -1;
            long position = 0;
            final long size = batches.byteSize();
            while (position < size) {
                final long batchSize = batchSize(batches, position);
                final MemorySegment one = batches.asSlice(position, batchSize);
                final ProduceOutcome outcome = appendOne(one);
                if (outcome.error() != Errors.NONE) {
                    return outcome;
                }
                if (firstOffset < 0) {
                    firstOffset = outcome.baseOffset();
                }
                position += batchSize;
            }
            return ProduceOutcome.appended(firstOffset);
        }
    }

    /**
     * Shared RDMA produce, before a TCP batch of an idempotent producer takes its place in the shared order: the
     * duplicate and sequence checks of {@link #appendFromClient}, and on {@link Verdict.Append} the batch is recorded
     * at once (offsets {@link ProducerStateTable#PENDING}) so that the producer's next pipelined batch is checked
     * against it. A duplicate of a batch still pending is answered with a retriable error: its offset is not known
     * yet.
     */
    public Verdict acceptShared(final RecordBatch view) {
        final long producerId = view.producerId();
        if (producerId < 0) {
            return new Verdict.Append();
        }
        appendLock.lock();
        try {
            final Verdict verdict =
                    producers.check(producerId, view.producerEpoch(), view.baseSequence(), view.lastSequence());
            if (verdict instanceof Verdict.Duplicate duplicate
                    && duplicate.firstOffset() == ProducerStateTable.PENDING) {
                return new Verdict.Reject(
                        Errors.REQUEST_TIMED_OUT,
                        "the same batch is being committed: producerId=" + producerId + " sequence="
                                + view.baseSequence() + "; retry");
            }
            if (verdict instanceof Verdict.Append) {
                producers.appended(
                        producerId,
                        view.producerEpoch(),
                        view.baseSequence(),
                        view.lastSequence(),
                        ProducerStateTable.PENDING,
                        ProducerStateTable.PENDING);
            }
            return verdict;
        } finally {
            appendLock.unlock();
        }
    }

    /** A batch {@link #acceptShared accepted} committed at these offsets. */
    public void sharedCommitted(
            final long producerId,
            final short epoch,
            final int firstSequence,
            final long firstOffset,
            final long lastOffset) {
        if (producerId < 0) {
            return;
        }
        appendLock.lock();
        try {
            producers.resolve(producerId, epoch, firstSequence, firstOffset, lastOffset);
        } finally {
            appendLock.unlock();
        }
    }

    /** A batch {@link #acceptShared accepted} will not commit: its retry must be accepted again. */
    public void sharedFailed(final long producerId, final short epoch, final int firstSequence) {
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

    /**
     * Commits a batch an exclusive RDMA producer wrote in place at the active segment's tail, with the same
     * idempotent-producer checks as {@link #appendFromClient}: the batch is validated in place, then a batch already in
     * the log (a retry after a lost connection) is discarded and answered {@link Errors#DUPLICATE_SEQUENCE_NUMBER} with
     * its original base offset, a sequence gap or a fenced epoch is discarded and answered with Kafka's error, and
     * anything else is committed and recorded. Discarded bytes are zeroed; the tail does not move.
     *
     * @throws InvalidRecordBatchException if the batch is invalid (zeroed, nothing committed)
     * @throws io.isthmus.broker.log.SegmentNotWritableException if the segment or position is not the tail
     */
    public ProduceOutcome commitWritten(final int segmentId, final long position, final long length) {
        appendLock.lock();
        try {
            writtenVerdict = null;
            final AppendInfo info = log.commitWritten(segmentId, position, length, 0, writtenAdmission);
            final Verdict verdict = writtenVerdict;
            if (info == null) {
                return switch (verdict) {
                    case Verdict.Duplicate duplicate ->
                        new ProduceOutcome(Errors.DUPLICATE_SEQUENCE_NUMBER, duplicate.firstOffset(), null);
                    case Verdict.Reject reject -> new ProduceOutcome(reject.error(), -1, reject.reason());
                    case null, default ->
                        throw new IllegalStateException("a written batch was refused without a verdict: partition="
                                + topicPartition + " position=" + position + " verdict=" + verdict);
                };
            }
            if (batch.producerId() >= 0) {
                producers.appended(
                        batch.producerId(),
                        batch.producerEpoch(),
                        batch.baseSequence(),
                        batch.lastSequence(),
                        info.firstOffset(),
                        info.lastOffset());
            }
            return ProduceOutcome.appended(info.firstOffset());
        } finally {
            appendLock.unlock();
        }
    }

    /** {@link #commitWritten}'s check, called by the log after validation; leaves its verdict in a field. */
    private boolean admitWritten(final MemorySegment mapping, final long position, final long length) {
        batch.wrap(mapping, position);
        final long producerId = batch.producerId();
        if (producerId < 0) {
            return true;
        }
        final Verdict verdict =
                producers.check(producerId, batch.producerEpoch(), batch.baseSequence(), batch.lastSequence());
        writtenVerdict = verdict;
        if (verdict instanceof Verdict.Duplicate) {
            LOG.debug(
                    "{}: duplicate RDMA write of producerId={} sequence={} discarded",
                    topicPartition,
                    producerId,
                    batch.baseSequence());
        }
        return verdict instanceof Verdict.Append;
    }

    private ProduceOutcome appendOne(final MemorySegment one) {
        batch.wrap(one, 0);
        final long producerId = batch.producerId();
        if (producerId >= 0) {
            final Verdict verdict =
                    producers.check(producerId, batch.producerEpoch(), batch.baseSequence(), batch.lastSequence());
            switch (verdict) {
                case Verdict.Duplicate duplicate -> {
                    LOG.debug(
                            "{}: duplicate batch of producerId={} sequence={} answered with offset={}",
                            topicPartition,
                            producerId,
                            batch.baseSequence(),
                            duplicate.firstOffset());
                    return ProduceOutcome.appended(duplicate.firstOffset());
                }
                case Verdict.Reject reject -> {
                    return new ProduceOutcome(reject.error(), -1, reject.reason());
                }
                case Verdict.Append append -> {}
            }
        }
        final short epoch = batch.producerEpoch();
        final int firstSequence = batch.baseSequence();
        final int lastSequence = batch.lastSequence();
        final AppendInfo info;
        try {
            info = log.append(one, 0);
        } catch (final InvalidRecordBatchException e) {
            LOG.warn("{}: rejected a produced batch: {}", topicPartition, e.getMessage());
            return new ProduceOutcome(Errors.CORRUPT_MESSAGE, -1, e.getMessage());
        } catch (final RecordBatchTooLargeException e) {
            // Kafka answers a batch over the size limit with MESSAGE_TOO_LARGE; the producer must not retry it.
            LOG.warn("{}: rejected a produced batch: {}", topicPartition, e.getMessage());
            return new ProduceOutcome(Errors.MESSAGE_TOO_LARGE, -1, e.getMessage());
        }
        if (producerId >= 0) {
            producers.appended(producerId, epoch, firstSequence, lastSequence, info.firstOffset(), info.lastOffset());
        }
        notifyAppendListeners();
        return ProduceOutcome.appended(info.firstOffset());
    }

    /**
     * The size of the batch at {@code position}, bounded by what is there; a header too short to tell is
     * taken as the rest, which the log's validation then rejects with its reason.
     */
    private static long batchSize(final MemorySegment batches, final long position) {
        final long remaining = batches.byteSize() - position;
        if (remaining < RecordBatchDescriptor.LOG_OVERHEAD) {
            return remaining;
        }
        final long size = RecordBatchDescriptor.LOG_OVERHEAD
                + (long) batches.get(RecordBatchDescriptor.INT32, position + RecordBatchDescriptor.LENGTH_OFFSET);
        return size <= RecordBatchDescriptor.LOG_OVERHEAD || size > remaining ? remaining : size;
    }

    /** Whole batches from {@code offset}, zero-copy and leased; see {@link PartitionLog#read}. */
    public LogReadResult read(final long offset, final int maxBytes) {
        return log.read(offset, maxBytes);
    }

    /**
     * Runs {@code listener} once, after the next append (or at once if the log already ends past
     * {@code offset}). Used by long-poll fetches; a listener that is no longer wanted is removed with
     * {@link #removeAppendListener}.
     */
    public void awaitAppend(final long offset, final Runnable listener) {
        appendListeners.add(listener);
        if (log.logEndOffset() > offset && appendListeners.remove(listener)) {
            listener.run();
        }
    }

    public void removeAppendListener(final Runnable listener) {
        appendListeners.remove(listener);
    }

    /**
     * Makes {@code owner} the RDMA writer of this partition: an exclusive RDMA producer (TCP produce is refused) or a
     * {@link SharedAppender} (TCP produce goes through it), until {@link #releaseWriter}. Taken under the append lock,
     * so no TCP append is half done when it returns and the committed tail it leaves is final. Returns whether {@code
     * owner} holds it now (also when it held it already).
     */
    public boolean tryClaimWriter(final Object owner) {
        appendLock.lock();
        try {
            return rdmaWriter.compareAndSet(null, owner) || rdmaWriter.get() == owner;
        } finally {
            appendLock.unlock();
        }
    }

    /** Gives writing back if {@code owner} holds it. */
    public void releaseWriter(final Object owner) {
        appendLock.lock();
        try {
            rdmaWriter.compareAndSet(owner, null);
        } finally {
            appendLock.unlock();
        }
    }

    /**
     * Runs {@code observer} after every append from now on, before waiting fetches wake, until it is removed. The RDMA
     * datapath refreshes its consumers' metadata slots this way, whichever path appended.
     */
    public void addAppendObserver(final Runnable observer) {
        appendObservers.add(observer);
    }

    public void removeAppendObserver(final Runnable observer) {
        appendObservers.remove(observer);
    }

    /** Wakes every waiting fetch; also called by appends that bypass {@link #appendFromClient} (RDMA). */
    public void notifyAppendListeners() {
        for (final Runnable observer : appendObservers) {
            observer.run();
        }
        for (final Runnable listener : appendListeners) {
            if (appendListeners.remove(listener)) {
                listener.run();
            }
        }
    }

    private void rebuildProducerState() {
        long offset = log.logStartOffset();
        final RecordBatch view = new RecordBatch();
        int batches = 0;
        while (offset < log.logEndOffset()) {
            try (LogReadResult result = log.read(offset, REBUILD_READ_BYTES)) {
                if (result.isEmpty()) {
                    break;
                }
                final MemorySegment records = result.records();
                long position = 0;
                while (position < records.byteSize()) {
                    view.wrap(records, position);
                    if (view.producerId() >= 0) {
                        producers.appended(
                                view.producerId(),
                                view.producerEpoch(),
                                view.baseSequence(),
                                view.lastSequence(),
                                view.baseOffset(),
                                view.lastOffset());
                    }
                    batches++;
                    position += view.sizeInBytes();
                }
                offset = result.nextOffset();
            }
        }
        if (producers.producerCount() > 0) {
            LOG.info(
                    "{}: rebuilt state of {} idempotent producers from {} batches",
                    topicPartition,
                    producers.producerCount(),
                    batches);
        }
    }

    public TopicPartition topicPartition() {
        return topicPartition;
    }

    public Uuid topicId() {
        return topicId;
    }

    public PartitionLog log() {
        return log;
    }

    public long logEndOffset() {
        return log.logEndOffset();
    }

    public long highWatermark() {
        return log.highWatermark();
    }

    public long logStartOffset() {
        return log.logStartOffset();
    }

    @Override
    public void close() {
        notifyAppendListeners();
        log.close();
    }
}
