package io.isthmus.broker.partition;

import io.isthmus.broker.log.AppendInfo;
import io.isthmus.broker.log.AppendOrigin;
import io.isthmus.broker.log.FetchIsolation;
import io.isthmus.broker.log.LeaderEpochCache;
import io.isthmus.broker.log.LogReadResult;
import io.isthmus.broker.log.LogSegment;
import io.isthmus.broker.log.PartitionLog;
import io.isthmus.broker.log.RecordBatchTooLargeException;
import io.isthmus.broker.producer.ProducerRejectedException;
import io.isthmus.broker.producer.ProducerStateTable.Verdict;
import io.isthmus.protocol.record.BatchSummary;
import io.isthmus.protocol.record.InvalidRecordBatchException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A topic partition as the request handlers and the RDMA datapath see it: the one entry through which every producer
 * path reaches its log, and the listeners waiting for the next append (long-poll fetches).
 *
 * <p>Appends go to the {@link PartitionLog}, the partition's append gateway: one lock, each batch validated once, the
 * idempotent-producer check for every transport, all or none. The partition adds the routing: while an RDMA producer
 * holds writing, TCP produce is refused (exclusive) or handed to the {@link SharedAppender} (shared); the decision and
 * the append happen under the log's append lock, so writing changes hands only between appends. Reads go straight to
 * the log, which needs no lock.
 *
 * <p><b>Replication.</b> On a broker of a cluster a partition of several replicas is either led here ({@link
 * #becomeReplicatedLeader}) or followed ({@link #becomeFollower}). Its leader tracks each follower's progress from
 * their fetches ({@link #onFollowerFetch}) in {@link InSyncReplicas}, advances the high watermark to what every
 * in-sync replica holds, answers acks=all appends once the high watermark passes them ({@link #awaitReplication}),
 * and asks the quorum to grow or shrink the ISR ({@link IsrChanges}). A follower takes no client append: its log
 * grows by the replica fetcher's {@link #appendAsFollower} and is cut back by {@link #truncateTo}.
 */
public final class Partition implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Partition.class);

    private final TopicPartition topicPartition;
    private final Uuid topicId;
    private final PartitionLog log;
    private final ReentrantLock appendLock;
    private final Set<Runnable> appendListeners = ConcurrentHashMap.newKeySet();
    private final Set<Runnable> appendObservers = new CopyOnWriteArraySet<>();
    /** An exclusive RDMA producer's session or a {@link SharedAppender}; null while TCP appends directly. */
    private final AtomicReference<Object> rdmaWriter = new AtomicReference<>();
    /**
     * The leader epoch every append is stamped with: the newest the log knows when it opens (0 for a new log), then the
     * one each {@link #becomeLeader} names. Written under the append lock, so an append is stamped with the epoch its
     * leadership was checked in or a newer one.
     */
    private volatile int leaderEpoch;
    /** While this broker follows the partition: client appends are refused under the append lock. */
    private volatile boolean follower;
    /** The leader's view of a partition of several replicas; null unless led here with followers. */
    private volatile InSyncReplicas replication;
    /** Guards {@link #replication}'s contents. */
    private final Object replicationLock = new Object();

    private IsrChanges isrChanges;
    /** acks=all appends waiting for the high watermark. */
    private final Set<ReplicationWaiter> replicationWaiters = ConcurrentHashMap.newKeySet();

    private Partition(final TopicPartition topicPartition, final Uuid topicId, final PartitionLog log) {
        this.topicPartition = topicPartition;
        this.topicId = topicId;
        this.log = log;
        this.appendLock = log.appendLock();
        this.leaderEpoch = Math.max(0, log.latestEpoch());
    }

    /** Wraps an opened log (which rebuilt its idempotent producers' state when it opened). */
    public static Partition open(final TopicPartition topicPartition, final Uuid topicId, final PartitionLog log) {
        return new Partition(topicPartition, topicId, log);
    }

    /** The leader epoch this partition's appends are stamped with now. */
    public int leaderEpoch() {
        return leaderEpoch;
    }

    /**
     * This broker leads the partition in {@code epoch} from now on: appends are stamped with it, and the epoch begins
     * at the log end offset (see {@link PartitionLog#assignLeaderEpoch}). An epoch no newer than the current one
     * changes nothing.
     */
    public void becomeLeader(final int epoch) {
        if (!follower
                && replication == null
                && epoch == leaderEpoch
                && log.latestEpoch() == epoch
                && !log.tracksHighWatermark()) {
            return; // every image repeats the role; only a change takes the append lock
        }
        appendLock.lock();
        try {
            takeLeaderEpoch(epoch);
            follower = false;
            if (replication != null) {
                replication = null;
                failReplicationWaiters(Errors.NOT_LEADER_OR_FOLLOWER);
            }
            log.highWatermarkFollowsLogEnd();
        } finally {
            appendLock.unlock();
        }
    }

    private void takeLeaderEpoch(final int epoch) {
        if (epoch > leaderEpoch || log.latestEpoch() < epoch || follower) {
            log.assignLeaderEpoch(epoch);
            leaderEpoch = epoch;
            LOG.info("{}: leader in epoch {} from offset {}", topicPartition, epoch, log.logEndOffset());
        }
    }

    /**
     * This broker leads the partition, which has {@code replicas}, in {@code epoch} ({@link #becomeLeader}), with
     * {@code isr} agreed at {@code partitionEpoch}. A newer epoch starts the followers' progress afresh; the same
     * epoch again takes the ISR (the cluster's metadata confirming or overtaking a change this leader asked for) and
     * the replicas (a reassignment adds and drops replicas without a new leader epoch).
     *
     * @param localId this broker's id
     * @param changes where ISR changes are asked for
     */
    public void becomeReplicatedLeader(
            final int localId,
            final int epoch,
            final int partitionEpoch,
            final List<Integer> replicas,
            final List<Integer> isr,
            final IsrChanges changes,
            final long nowMs) {
        appendLock.lock();
        try {
            final InSyncReplicas current = replication;
            if (current != null && current.leaderEpoch() == epoch && !follower) {
                synchronized (replicationLock) {
                    current.replicasAre(replicas, partitionEpoch, nowMs);
                    current.agreed(isr, partitionEpoch);
                }
            } else if (epoch >= leaderEpoch) {
                takeLeaderEpoch(epoch);
                follower = false;
                isrChanges = changes;
                log.trackHighWatermark();
                replication =
                        new InSyncReplicas(localId, epoch, log.logEndOffset(), replicas, isr, partitionEpoch, nowMs);
                LOG.info("{}: leads replicas {} with isr {} in epoch {}", topicPartition, replicas, isr, epoch);
            }
        } finally {
            appendLock.unlock();
        }
        maybeAdvanceHighWatermark();
    }

    /**
     * This broker follows the partition, whose leader is in {@code epoch} now: client appends are refused, acks=all
     * appends still waiting fail with NOT_LEADER_OR_FOLLOWER, and the high watermark is the one the leader reports.
     */
    public void becomeFollower(final int epoch) {
        appendLock.lock();
        try {
            if (follower && epoch <= leaderEpoch) {
                return;
            }
            follower = true;
            replication = null;
            leaderEpoch = Math.max(leaderEpoch, epoch);
            log.trackHighWatermark();
            LOG.info("{}: follows in epoch {} from offset {}", topicPartition, epoch, log.logEndOffset());
        } finally {
            appendLock.unlock();
        }
        failReplicationWaiters(Errors.NOT_LEADER_OR_FOLLOWER);
        notifyAppendListeners();
    }

    public boolean isFollower() {
        return follower;
    }

    /** The ISR the leader works with now (the agreed one plus members being added); empty unless led with followers. */
    public List<Integer> inSyncReplicas() {
        final InSyncReplicas current = replication;
        if (current == null) {
            return List.of();
        }
        synchronized (replicationLock) {
            return current.maximalIsr();
        }
    }

    /**
     * How many replicas are in sync for acks=all: the agreed ISR of a partition led with followers, 1 for a partition
     * of one replica.
     */
    public int inSyncReplicaCount() {
        final InSyncReplicas current = replication;
        if (current == null) {
            return 1;
        }
        synchronized (replicationLock) {
            return current.isr().size();
        }
    }

    /**
     * Why a write that waits for its in-sync replicas must be refused before anything is appended: fewer than {@code
     * minInsyncReplicas} are in sync (the reason names them and {@code setting}, the limit's name as the operator set
     * it). Empty when enough are.
     */
    public Optional<String> tooFewInSync(final int minInsyncReplicas, final String setting) {
        if (inSyncReplicaCount() >= minInsyncReplicas) {
            return Optional.empty();
        }
        return Optional.of("in-sync replicas " + inSyncReplicas() + " fewer than " + setting + "=" + minInsyncReplicas);
    }

    /**
     * A follower fetched at {@code fetchOffset}: its progress is recorded, the high watermark advanced if the ISR now
     * all hold more, and the ISR grown if the follower has caught up. Returns false if {@code replicaId} is not a
     * follower of this leader.
     */
    public boolean onFollowerFetch(final int replicaId, final long fetchOffset, final long nowMs) {
        return onFollowerProgress(replicaId, fetchOffset, nowMs, false);
    }

    /**
     * {@link #onFollowerFetch} for a follower this leader pushes the partition to: the fetch's offset was read before
     * the pushes acknowledged since, so it counts only where it is ahead of them, and the fetch still tells that the
     * follower is caught up while nothing new is pushed.
     */
    public boolean onPushedFollowerFetch(final int replicaId, final long fetchOffset, final long nowMs) {
        return onFollowerProgress(replicaId, fetchOffset, nowMs, true);
    }

    /**
     * A follower's log ends at {@code logEndOffset}: progress recorded, the high watermark and the ISR moved; with
     * {@code onlyForward}, an offset behind what is known already counts as what is known.
     */
    private boolean onFollowerProgress(
            final int replicaId, final long logEndOffset, final long nowMs, final boolean onlyForward) {
        final InSyncReplicas current = replication;
        if (current == null) {
            return false;
        }
        Optional<List<Integer>> expansion;
        synchronized (replicationLock) {
            // Under the lock: a reassignment changes the replicas of a leader epoch (InSyncReplicas.replicasAre).
            if (!current.isReplica(replicaId)) {
                return false;
            }
            current.onFollowerFetch(replicaId, logEndOffset, log.logEndOffset(), nowMs, onlyForward);
        }
        maybeAdvanceHighWatermark();
        synchronized (replicationLock) {
            expansion = current.expansionFor(replicaId, log.highWatermark(), isrChanges::mayJoin, nowMs);
            expansion.ifPresent(current::changeSent);
        }
        expansion.ifPresent(isr -> sendIsrChange(current, isr));
        return true;
    }

    /**
     * A follower acknowledged batches this leader pushed to it in {@code leaderEpoch} (RDMA push replication): its log
     * ends at {@code logEndOffset}, which counts as a fetch there ({@link #onFollowerFetch}). An answer to an older
     * leadership's push, or one past this log's end, is not progress and is ignored (false).
     */
    public boolean onFollowerPush(
            final int replicaId, final long logEndOffset, final int leaderEpoch, final long nowMs) {
        final InSyncReplicas current = replication;
        if (current == null || current.leaderEpoch() != leaderEpoch || logEndOffset > log.logEndOffset()) {
            return false;
        }
        return onFollowerProgress(replicaId, logEndOffset, nowMs, true);
    }

    /** Asks for a smaller ISR if followers have not caught up within {@code maxLagMs} (Kafka's ISR shrink). */
    public void maybeShrinkIsr(final long nowMs, final long maxLagMs) {
        final InSyncReplicas current = replication;
        if (current == null) {
            return;
        }
        final Optional<List<Integer>> shrunk;
        synchronized (replicationLock) {
            shrunk = current.shrinkAt(nowMs, maxLagMs);
            shrunk.ifPresent(current::changeSent);
        }
        shrunk.ifPresent(isr -> {
            LOG.info("{}: followers lag more than {} ms: isr {} -> {}", topicPartition, maxLagMs, current.isr(), isr);
            sendIsrChange(current, isr);
        });
        // A shrink agreed meanwhile may let the high watermark move.
        maybeAdvanceHighWatermark();
    }

    private void sendIsrChange(final InSyncReplicas current, final List<Integer> isr) {
        final int partitionEpoch;
        synchronized (replicationLock) {
            partitionEpoch = current.partitionEpoch();
        }
        isrChanges.alter(this, current.leaderEpoch(), partitionEpoch, isr).whenComplete((answer, failure) -> {
            synchronized (replicationLock) {
                if (failure != null) {
                    current.changeOutcomeUnknown(System.currentTimeMillis());
                } else {
                    current.changeAnswered();
                    if (answer.error() == Errors.NONE) {
                        current.agreed(answer.isr(), answer.partitionEpoch());
                    }
                }
            }
            if (failure == null && answer.error() == Errors.NONE) {
                LOG.info("{}: isr is {} in partition epoch {}", topicPartition, answer.isr(), answer.partitionEpoch());
            } else {
                LOG.info(
                        "{}: isr change to {} not made: {}",
                        topicPartition,
                        isr,
                        failure != null ? failure.toString() : answer.error());
            }
            maybeAdvanceHighWatermark();
        });
    }

    /** Moves the high watermark of a partition led with followers to what its maximal ISR holds. */
    private void maybeAdvanceHighWatermark() {
        final InSyncReplicas current = replication;
        if (current == null) {
            return;
        }
        final long candidate;
        synchronized (replicationLock) {
            candidate = current.highWatermarkCandidate(log.logEndOffset());
        }
        if (candidate >= 0 && log.advanceHighWatermark(candidate)) {
            onHighWatermarkAdvanced();
        }
    }

    /** A follower learnt its leader's high watermark: its own is that, as far as its log reaches. */
    public void followerHighWatermark(final long leaderHighWatermark) {
        if (log.advanceHighWatermark(leaderHighWatermark)) {
            wakeReaders();
        }
    }

    private void onHighWatermarkAdvanced() {
        // One-sided readers may read up to the high watermark only (see readablePosition): their slots move with it.
        for (final Runnable observer : appendObservers) {
            observer.run();
        }
        final long highWatermark = log.highWatermark();
        for (final ReplicationWaiter waiter : replicationWaiters) {
            if (waiter.lastOffset < highWatermark) {
                waiter.future.complete(
                        inSyncReplicaCount() < waiter.minInsyncReplicas
                                ? Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND
                                : Errors.NONE);
            }
        }
        wakeReaders();
    }

    /** An acks=all append waiting for the high watermark to pass {@code lastOffset}. */
    private record ReplicationWaiter(long lastOffset, int minInsyncReplicas, CompletableFuture<Errors> future) {}

    /**
     * Completes once every in-sync replica holds the append that ended at {@code lastOffset}, made in {@code
     * appendEpoch} (the high watermark is past it): NONE, or NOT_ENOUGH_REPLICAS_AFTER_APPEND if the ISR shrank below
     * {@code minInsyncReplicas} meanwhile, REQUEST_TIMED_OUT after {@code timeoutMs}, NOT_LEADER_OR_FOLLOWER if
     * leadership moved since the append (even before this is called: the append may be truncated, or its offsets
     * reused by a later leadership). At once for a partition without followers.
     */
    public CompletableFuture<Errors> awaitReplication(
            final long lastOffset, final int appendEpoch, final int minInsyncReplicas, final long timeoutMs) {
        final InSyncReplicas current = replication;
        if (current == null) {
            // No followers now: none at the append either (a single replica never tracks a high watermark), or the
            // leadership has moved away since.
            return CompletableFuture.completedFuture(
                    log.tracksHighWatermark() ? Errors.NOT_LEADER_OR_FOLLOWER : Errors.NONE);
        }
        if (current.leaderEpoch() != appendEpoch) {
            return CompletableFuture.completedFuture(Errors.NOT_LEADER_OR_FOLLOWER);
        }
        if (lastOffset < log.highWatermark()) {
            return CompletableFuture.completedFuture(Errors.NONE);
        }
        final ReplicationWaiter waiter =
                new ReplicationWaiter(lastOffset, minInsyncReplicas, new CompletableFuture<>());
        replicationWaiters.add(waiter);
        waiter.future.whenComplete((error, failure) -> replicationWaiters.remove(waiter));
        waiter.future.completeOnTimeout(Errors.REQUEST_TIMED_OUT, timeoutMs, TimeUnit.MILLISECONDS);
        // The high watermark or the leadership may have moved while the waiter was added.
        if (replication != current) {
            waiter.future.complete(Errors.NOT_LEADER_OR_FOLLOWER);
        } else if (lastOffset < log.highWatermark()) {
            onHighWatermarkAdvanced();
        }
        return waiter.future;
    }

    /**
     * {@code appended} once every in-sync replica holds it ({@link #awaitReplication}); a refusal from the log as it is,
     * and a failed wait as the error to answer in its place.
     */
    public CompletableFuture<ProduceOutcome> awaitReplicated(
            final ProduceOutcome appended, final int minInsyncReplicas, final long timeoutMs) {
        if (appended.error() != Errors.NONE || appended.lastOffset() < 0) {
            return CompletableFuture.completedFuture(appended);
        }
        return awaitReplication(appended.lastOffset(), appended.leaderEpoch(), minInsyncReplicas, timeoutMs)
                .thenApply(error -> error == Errors.NONE
                        ? appended
                        : new ProduceOutcome(
                                error,
                                -1,
                                "offsets " + appended.baseOffset() + ".." + appended.lastOffset() + " of "
                                        + topicPartition + ": " + error.message()));
    }

    private void failReplicationWaiters(final Errors error) {
        for (final ReplicationWaiter waiter : replicationWaiters) {
            waiter.future.complete(error);
        }
    }

    /**
     * Appends batches fetched from the leader as they are (see {@link PartitionLog#appendAsFollower}); only while this
     * broker follows the partition.
     */
    public AppendInfo appendAsFollower(final MemorySegment batches) {
        appendLock.lock();
        try {
            if (!follower) {
                throw new IllegalStateException("not a follower of " + topicPartition + ": replicated batches refused");
            }
            return log.appendAsFollower(batches);
        } finally {
            appendLock.unlock();
        }
    }

    /** Cuts the follower's log back (see {@link PartitionLog#truncateTo}); only while this broker follows. */
    public long truncateTo(final long offset) {
        appendLock.lock();
        try {
            if (!follower) {
                throw new IllegalStateException("not a follower of " + topicPartition + ": truncation refused");
            }
            return log.truncateTo(offset);
        } finally {
            appendLock.unlock();
        }
    }

    /** Empties the follower's log to begin at {@code offset} (see {@link PartitionLog#truncateFullyAndStartAt}). */
    public void truncateFullyAndStartAt(final long offset) {
        appendLock.lock();
        try {
            if (!follower) {
                throw new IllegalStateException("not a follower of " + topicPartition + ": truncation refused");
            }
            log.truncateFullyAndStartAt(offset);
        } finally {
            appendLock.unlock();
        }
    }

    /** Where {@code epoch} ends in this partition's log (OffsetForLeaderEpoch); see {@link PartitionLog#endOffsetForEpoch}. */
    public LeaderEpochCache.EpochEndOffset endOffsetForEpoch(final int epoch) {
        return log.endOffsetForEpoch(epoch);
    }

    /**
     * The outcome of a produce to this partition: the error, and for an append the offsets of its first and last
     * record and the leader epoch it was appended in (-1 where unknown), which acks=all checks leadership against.
     */
    public record ProduceOutcome(Errors error, long baseOffset, long lastOffset, int leaderEpoch, String message) {
        public ProduceOutcome(final Errors error, final long baseOffset, final String message) {
            this(error, baseOffset, -1, -1, message);
        }

        static ProduceOutcome appended(final long baseOffset, final long lastOffset, final int leaderEpoch) {
            return new ProduceOutcome(Errors.NONE, baseOffset, lastOffset, leaderEpoch, null);
        }
    }

    /**
     * Appends the batches a client sent, all or none. Batches an idempotent producer already appended are not appended
     * again (their original base offset is answered, as Kafka does). Invalid input appends nothing and is answered with
     * Kafka's error.
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
        final ProduceOutcome outcome;
        appendLock.lock();
        try {
            final Object writer = rdmaWriter.get();
            if (writer instanceof SharedAppender shared) {
                return shared.append(this, batches);
            }
            if (writer != null) {
                return CompletableFuture.completedFuture(exclusivelyWritten(writer));
            }
            if (follower) {
                return CompletableFuture.completedFuture(notLeader());
            }
            outcome = appendLocked(batches);
        } finally {
            appendLock.unlock();
        }
        return CompletableFuture.completedFuture(outcome);
    }

    /**
     * Appends a batch the broker's own coordinators write to their internal topic as its leader (committed offsets,
     * transaction states, and the offsets a group coordinator holds for a producer's transaction, which carry that
     * producer's id and epoch but no sequence numbers). Answered as {@link #appendFromClient}; NOT_LEADER_OR_FOLLOWER
     * on a follower, and refused while an RDMA producer writes the partition (internal topics have none).
     */
    public ProduceOutcome appendFromCoordinator(final MemorySegment batch) {
        appendLock.lock();
        try {
            final Object writer = rdmaWriter.get();
            if (writer != null) {
                return exclusivelyWritten(writer);
            }
            if (follower) {
                return notLeader();
            }
            return appendLocked(() -> log.append(batch, leaderEpoch, AppendOrigin.COORDINATOR));
        } finally {
            appendLock.unlock();
        }
    }

    /**
     * Appends the one batch a shared-memory producer left in its staging slot ({@code staged}, which the producer can
     * still write): copied out of its reach first, then validated, checked and committed, in the same order as every
     * other writer of the partition (with shared RDMA producers, through the {@link SharedAppender}'s order). Answered as
     * {@link #appendFromClientAsync}; refused while an exclusive RDMA producer writes the partition.
     */
    public CompletableFuture<ProduceOutcome> appendStagedAsync(final MemorySegment staged) {
        appendLock.lock();
        try {
            final Object writer = rdmaWriter.get();
            if (writer instanceof SharedAppender shared) {
                return appendStagedShared(shared, staged);
            }
            if (writer != null) {
                return CompletableFuture.completedFuture(exclusivelyWritten(writer));
            }
            if (follower) {
                return CompletableFuture.completedFuture(notLeader());
            }
            return CompletableFuture.completedFuture(appendLocked(() -> log.appendStaged(staged, leaderEpoch)));
        } finally {
            appendLock.unlock();
        }
    }

    /**
     * The shared order reads a local append's batches while it reserves and copies them, so they must hold still: the
     * staged batch is copied into memory of its own first, freed once the batch is answered.
     */
    private CompletableFuture<ProduceOutcome> appendStagedShared(
            final SharedAppender shared, final MemorySegment staged) {
        final long length;
        try {
            length = PartitionLog.stagedBatchLength(staged, log.config().messageMaxBytes());
        } catch (final InvalidRecordBatchException e) {
            return CompletableFuture.completedFuture(new ProduceOutcome(Errors.CORRUPT_MESSAGE, -1, e.getMessage()));
        }
        final Arena arena = Arena.ofShared();
        final MemorySegment copy = arena.allocate(length, 8);
        MemorySegment.copy(staged, 0, copy, 0, length);
        return shared.append(this, copy).whenComplete((outcome, error) -> arena.close());
    }

    private ProduceOutcome notLeader() {
        return new ProduceOutcome(Errors.NOT_LEADER_OR_FOLLOWER, -1, "this broker follows " + topicPartition + " now");
    }

    private ProduceOutcome exclusivelyWritten(final Object writer) {
        return new ProduceOutcome(
                Errors.POLICY_VIOLATION,
                -1,
                "partition is written by an exclusive RDMA producer: partition=" + topicPartition + " writer="
                        + writer);
    }

    private ProduceOutcome appendLocked(final MemorySegment batches) {
        return appendLocked(() -> log.append(batches, leaderEpoch));
    }

    /** Runs one append under the append lock, answering Kafka's error for each way it can refuse. */
    private ProduceOutcome appendLocked(final Supplier<AppendInfo> append) {
        final AppendInfo info;
        try {
            info = append.get();
        } catch (final InvalidRecordBatchException e) {
            LOG.warn("{}: rejected a produced batch: {}", topicPartition, e.getMessage());
            return new ProduceOutcome(Errors.CORRUPT_MESSAGE, -1, e.getMessage());
        } catch (final RecordBatchTooLargeException e) {
            // Kafka answers a batch over the size limit with MESSAGE_TOO_LARGE; the producer must not retry it.
            LOG.warn("{}: rejected a produced batch: {}", topicPartition, e.getMessage());
            return new ProduceOutcome(Errors.MESSAGE_TOO_LARGE, -1, e.getMessage());
        } catch (final ProducerRejectedException e) {
            return new ProduceOutcome(e.error(), -1, e.getMessage());
        } catch (final KafkaStorageException | UncheckedIOException e) {
            // A full disk, or a roll that could not create or map its segment: nothing was written where a reader
            // could see it, the batches' sequences were let go, and the producer retries.
            LOG.warn("{}: cannot append: {}", topicPartition, e.getMessage());
            return new ProduceOutcome(Errors.KAFKA_STORAGE_ERROR, -1, e.getMessage());
        }
        if (!info.duplicate()) {
            notifyAppendListeners();
        }
        return ProduceOutcome.appended(info.firstOffset(), info.lastOffset(), leaderEpoch);
    }

    /**
     * Commits the batch already at the active segment's tail (see {@link PartitionLog#commitWrittenBatch}): a TCP batch
     * that shared RDMA produce copied to its reserved place. Wakes the readers. A retry of a batch already in the log
     * comes back as a {@link AppendInfo#duplicate() duplicate}: nothing was written, the tail did not move.
     *
     * @param sequencesReserved the batch's sequences were {@link #reserveSequences reserved} when it took its place in
     *     a shared order
     * @throws InvalidRecordBatchException if the batch is invalid (zeroed, nothing committed)
     * @throws ProducerRejectedException on a sequence gap or a fenced epoch (zeroed, nothing committed)
     * @throws io.isthmus.broker.log.SegmentNotWritableException if the segment or position is not the tail
     */
    public AppendInfo commitWritten(final int segmentId, final long position, final boolean sequencesReserved) {
        final AppendInfo info;
        // The epoch is read under the append lock the commit takes too, so a leadership that changes meanwhile
        // cannot leave this batch stamped with the epoch before it.
        appendLock.lock();
        try {
            info = log.commitWrittenBatch(segmentId, position, leaderEpoch, sequencesReserved);
        } finally {
            appendLock.unlock();
        }
        return published(info);
    }

    /**
     * Copies the batch an RDMA producer wrote into its staging slot to the active segment's tail and commits the copy
     * (see {@link PartitionLog#commitStagedBatch}), then wakes the readers; otherwise as {@link #commitWritten}.
     *
     * @param grantEpoch the leader epoch the producer's access was granted in: the batch is committed only while this
     *     broker still leads the partition in it, checked under the append lock a leadership change takes too (a check
     *     before the call could be overtaken by a change)
     * @throws NotLeaderOrFollowerException if this broker follows the partition now or leads it in another epoch
     *     (nothing committed)
     */
    public AppendInfo commitStaged(
            final int segmentId,
            final long position,
            final MemorySegment staged,
            final boolean sequencesReserved,
            final int grantEpoch) {
        final AppendInfo info;
        appendLock.lock();
        try {
            if (follower || leaderEpoch != grantEpoch) {
                throw new NotLeaderOrFollowerException("RDMA write to " + topicPartition + " not committed: granted in"
                        + " leader epoch " + grantEpoch + ", this broker "
                        + (follower ? "follows" : "leads in epoch " + leaderEpoch) + " now");
            }
            info = log.commitStagedBatch(segmentId, position, staged, leaderEpoch, sequencesReserved);
        } finally {
            appendLock.unlock();
        }
        return published(info);
    }

    private AppendInfo published(final AppendInfo info) {
        if (!info.duplicate()) {
            notifyAppendListeners();
        }
        return info;
    }

    /** See {@link PartitionLog#reserveSequences}. */
    public Verdict reserveSequences(final BatchSummary batch) {
        return log.reserveSequences(batch);
    }

    /** See {@link PartitionLog#releaseSequences}. */
    public void releaseSequences(final long producerId, final short epoch, final int firstSequence) {
        log.releaseSequences(producerId, epoch, firstSequence);
    }

    /** {@link #read(long, int)} up to the bound {@code isolation} names; see {@link PartitionLog#read}. */
    public LogReadResult read(final long offset, final int maxBytes, final FetchIsolation isolation) {
        return log.read(offset, maxBytes, isolation);
    }

    /** Whole batches from {@code offset}, zero-copy and leased; see {@link PartitionLog#read}. */
    public LogReadResult read(final long offset, final int maxBytes) {
        return log.read(offset, maxBytes);
    }

    /** {@link #read(long, int)}, below the last stable offset only when {@code committedOnly} (read_committed). */
    public LogReadResult read(final long offset, final int maxBytes, final boolean committedOnly) {
        return log.read(offset, maxBytes, committedOnly);
    }

    /**
     * Appends the transaction coordinator's marker batch ending {@code producerId}'s transaction, as this partition's
     * leader. A partition an RDMA producer writes holds no open transaction ({@link #tryClaimWriter} waits for them to
     * end, and transactional batches cannot be written over RDMA), so there the marker has nothing to end and is not
     * written: the RDMA writer's order at the tail stays its own. Returns where the marker went (its offset and the
     * leader epoch it was stamped with, which {@link #awaitReplication} checks), NONE with offset -1 if it was not
     * written, or NOT_LEADER_OR_FOLLOWER on a follower.
     *
     * @throws ProducerRejectedException if the marker's epoch is older than the producer's
     */
    public ProduceOutcome appendMarker(final MemorySegment marker) {
        final AppendInfo info;
        final int epoch;
        appendLock.lock();
        try {
            if (rdmaWriter.get() != null) {
                return new ProduceOutcome(Errors.NONE, -1, null);
            }
            if (follower) {
                return notLeader();
            }
            epoch = leaderEpoch;
            info = log.append(marker, epoch, AppendOrigin.COORDINATOR);
        } finally {
            appendLock.unlock();
        }
        notifyAppendListeners();
        return ProduceOutcome.appended(info.firstOffset(), info.lastOffset(), epoch);
    }

    /**
     * Runs {@code listener} once, after the next append (or at once if the log already ends past
     * {@code offset}). Used by long-poll fetches; a listener that is no longer wanted is removed with
     * {@link #removeAppendListener}.
     */
    public void awaitAppend(final long offset, final Runnable listener) {
        awaitAppend(offset, false, listener);
    }

    /**
     * {@link #awaitAppend(long, Runnable)}, where with {@code committedOnly} "ends past {@code offset}" means the last
     * stable offset does: a read_committed fetch at the LSO must not be woken at once by an open transaction's data.
     */
    public void awaitAppend(final long offset, final boolean committedOnly, final Runnable listener) {
        awaitAppend(offset, committedOnly ? FetchIsolation.TXN_COMMITTED : FetchIsolation.HIGH_WATERMARK, listener);
    }

    /**
     * Runs {@code listener} once, after the next append or high-watermark move, or at once if the bound {@code
     * isolation} names (log end, high watermark, last stable offset) is already past {@code offset}.
     */
    public void awaitAppend(final long offset, final FetchIsolation isolation, final Runnable listener) {
        appendListeners.add(listener);
        final long end =
                switch (isolation) {
                    case LOG_END -> log.logEndOffset();
                    case HIGH_WATERMARK -> log.highWatermark();
                    case TXN_COMMITTED -> log.lastStableOffset();
                };
        if (end > offset && appendListeners.remove(listener)) {
            listener.run();
        }
    }

    public void removeAppendListener(final Runnable listener) {
        appendListeners.remove(listener);
    }

    /** Listeners waiting for an append here: long-poll fetches, mostly. */
    public int appendListenerCount() {
        return appendListeners.size();
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
            if (rdmaWriter.get() == null && log.hasOpenTransactions()) {
                // Markers would have to take a place in the RDMA writers' order; writing waits for the transactions.
                return false;
            }
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
     * Where a one-sided reader of {@code segment} may read up to (see {@link PartitionLog#readablePosition}): its
     * committed end, or in a replicated partition the end of what every in-sync replica holds.
     */
    public long readablePosition(final LogSegment segment) {
        return log.readablePosition(segment);
    }

    /**
     * Runs {@code observer} after every append, and after every advance of a tracked high watermark, from now on, before
     * waiting fetches wake, until it is removed. The one-sided datapaths refresh their consumers' metadata slots this
     * way, whichever path appended.
     */
    public void addAppendObserver(final Runnable observer) {
        appendObservers.add(observer);
    }

    public void removeAppendObserver(final Runnable observer) {
        appendObservers.remove(observer);
    }

    /** Runs the append observers and wakes every waiting fetch; called after every append, and after a roll. */
    public void notifyAppendListeners() {
        for (final Runnable observer : appendObservers) {
            observer.run();
        }
        // A leader alone in its ISR moves the high watermark with its own appends.
        maybeAdvanceHighWatermark();
        wakeReaders();
    }

    private void wakeReaders() {
        for (final Runnable listener : appendListeners) {
            if (appendListeners.remove(listener)) {
                listener.run();
            }
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

    /** See {@link PartitionLog#lastStableOffset()}. */
    public long lastStableOffset() {
        return log.lastStableOffset();
    }

    @Override
    public void close() {
        failReplicationWaiters(Errors.NOT_LEADER_OR_FOLLOWER);
        notifyAppendListeners();
        log.close();
    }
}
