package io.isthmus.broker.transaction;

import io.isthmus.broker.group.CommittedOffset;
import io.isthmus.broker.group.GroupCoordinator;
import io.isthmus.broker.log.SegmentIdAllocator;
import io.isthmus.broker.log.TransactionVerifier;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.producer.ProducerIds;
import java.io.IOException;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A transaction coordinator, with Kafka's protocol semantics for transactional producers of version 1 transactions
 * (partitions added explicitly with AddPartitionsToTxn): a single broker's, which every transactional id maps to, or,
 * in a cluster, the one for the ids of one partition of {@code __transaction_state}, run by that partition's leader
 * for as long as it leads it (see {@code TransactionStatePartitions}).
 *
 * <p>Every state change is written to the {@link TransactionStateLog} before it takes effect and before the producer
 * hears of it. Ending a transaction is: write PrepareCommit/PrepareAbort (the decision is durable from here), write the
 * markers into its partitions, apply (or drop) the group offsets committed in it, write CompleteCommit/CompleteAbort.
 * After a crash anywhere in between, loading the log finds the prepare state and finishes it; markers and offsets
 * written twice change nothing. An open transaction stays open across a restart, as in Kafka: its producer may still
 * end it, or its timeout aborts it.
 *
 * <p>One lock orders all of it. Marker writes take partitions' append locks inside it; nothing holding an append lock
 * takes it (the logs consult {@link #verifier()}, which needs no lock).
 */
public final class TransactionCoordinator implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionCoordinator.class);
    /** Epoch of a single broker's coordinator, written in its markers: never re-elected, always 0. */
    public static final int SOLE_COORDINATOR_EPOCH = 0;

    /** Limits and timers, under Kafka's broker setting names (see {@code BrokerConfig}). */
    public record Settings(
            int maxTimeoutMs, int idExpirationMs, int abortTimedOutIntervalMs, int removeExpiredIntervalMs) {}

    /** The answer to InitProducerId. */
    public record InitResult(Errors error, long producerId, short producerEpoch) {
        static InitResult failed(final Errors error) {
            return new InitResult(error, -1, (short) -1);
        }
    }

    /** What DescribeTransactions and ListTransactions report of one transactional id. */
    public record TransactionDescription(
            String transactionalId,
            TransactionState state,
            long producerId,
            short producerEpoch,
            int timeoutMs,
            long startTimestampMs,
            Set<TopicPartition> partitions) {}

    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, TransactionMetadata> transactions = new LinkedHashMap<>();
    private final TransactionStateLog stateLog;
    private final MarkerWriter markers;
    private final int coordinatorEpoch;
    private final OpenTransactionPartitions open = new OpenTransactionPartitions();
    private final ProducerIds producerIds;
    private final Predicate<TopicPartition> partitionExists;
    private final GroupCoordinator groups;
    private final Function<String, Optional<TopicPartition>> groupOffsetsPartition;
    private final Settings settings;
    private final InstantSource clock;
    private final ScheduledExecutorService timers;
    /** Whether the timers and the marker writer are this coordinator's own (a single broker's) or shared. */
    private final boolean ownsShared;

    private final List<ScheduledFuture<?>> scheduled = new ArrayList<>();
    /** Set under the lock at close: a request that found this coordinator before it was retired is turned away. */
    private boolean closed;

    /**
     * What a coordinator works with besides its state log and markers: shared by every coordinator of a broker.
     *
     * @param groupOffsetsPartition where a group's coordinator keeps the offsets a transaction commits for it, for a
     *     cluster (the group's {@code __consumer_offsets} partition, which then joins the transaction and takes its
     *     marker); empty for a single broker, whose coordinator keeps them in the transaction's state and applies them
     *     to {@code groups} itself
     */
    public record Context(
            ProducerIds producerIds,
            Predicate<TopicPartition> partitionExists,
            GroupCoordinator groups,
            Function<String, Optional<TopicPartition>> groupOffsetsPartition,
            Settings settings,
            InstantSource clock) {}

    private TransactionCoordinator(
            final TransactionStateLog stateLog,
            final MarkerWriter markers,
            final int coordinatorEpoch,
            final Context context,
            final ScheduledExecutorService timers,
            final boolean ownsShared) {
        this.stateLog = stateLog;
        this.markers = markers;
        this.coordinatorEpoch = coordinatorEpoch;
        this.producerIds = context.producerIds();
        this.partitionExists = context.partitionExists();
        this.groups = context.groups();
        this.groupOffsetsPartition = context.groupOffsetsPartition();
        this.settings = context.settings();
        this.clock = context.clock();
        this.timers = timers;
        this.ownsShared = ownsShared;
    }

    /**
     * A single broker's coordinator: loads the state log under {@code metadataDir}, finishes the transactions a crash
     * left half ended, makes every partition consult this coordinator before transactional data enters it, and starts
     * the timers.
     */
    public static TransactionCoordinator start(
            final Path metadataDir,
            final int stateLogSegmentBytes,
            final SegmentIdAllocator segmentIds,
            final ProducerIds producerIds,
            final PartitionManager partitions,
            final GroupCoordinator groups,
            final Settings settings,
            final InstantSource clock)
            throws IOException {
        final TransactionStateLog stateLog =
                TransactionStateLog.open(metadataDir, stateLogSegmentBytes, segmentIds, clock);
        final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(runnable -> {
            final Thread thread = new Thread(runnable, "isthmus-transaction-timers");
            thread.setDaemon(true);
            return thread;
        });
        final TransactionCoordinator coordinator = new TransactionCoordinator(
                stateLog,
                new TransactionMarkerWriter(partitions, clock),
                SOLE_COORDINATOR_EPOCH,
                new Context(
                        producerIds,
                        tp -> partitions.partition(tp).isPresent(),
                        groups,
                        groupId -> Optional.empty(),
                        settings,
                        clock),
                timers,
                true);
        coordinator.recover(stateLog.load());
        partitions.verifyTransactionsWith(coordinator.open);
        coordinator.startTimers();
        return coordinator;
    }

    /**
     * The coordinator of one state partition of a cluster, elected its leader in {@code coordinatorEpoch} (the
     * partition's leader epoch, which its markers carry): loads the states, finishes the transactions the previous
     * coordinator left prepared, and starts its timers on {@code timers}; the timers and {@code markers} are shared
     * with the broker's other coordinators, and closing this one closes neither.
     */
    public static TransactionCoordinator load(
            final TransactionStateLog stateLog,
            final MarkerWriter markers,
            final int coordinatorEpoch,
            final Context context,
            final ScheduledExecutorService timers) {
        final TransactionCoordinator coordinator =
                new TransactionCoordinator(stateLog, markers, coordinatorEpoch, context, timers, false);
        coordinator.recover(stateLog.load());
        coordinator.startTimers();
        return coordinator;
    }

    private void startTimers() {
        scheduled.add(timers.scheduleWithFixedDelay(
                this::abortTimedOutTransactions,
                settings.abortTimedOutIntervalMs(),
                settings.abortTimedOutIntervalMs(),
                TimeUnit.MILLISECONDS));
        scheduled.add(timers.scheduleWithFixedDelay(
                this::removeExpiredTransactionalIds,
                settings.removeExpiredIntervalMs(),
                settings.removeExpiredIntervalMs(),
                TimeUnit.MILLISECONDS));
    }

    private void recover(final Map<String, TransactionMetadata> loaded) {
        lock.lock();
        try {
            transactions.putAll(loaded);
            int finished = 0;
            int ongoing = 0;
            for (final TransactionMetadata metadata : List.copyOf(transactions.values())) {
                if (metadata.state() == TransactionState.ONGOING) {
                    open.open(metadata);
                    ongoing++;
                } else if (metadata.state().isPreparing()) {
                    try {
                        if (tryComplete(metadata)) {
                            finished++;
                        }
                    } catch (final StateWriteException e) {
                        // Markers written, completion not recorded yet: the timer finishes it.
                        LOG.warn(
                                "transaction of transactionalId={} not finished at load: {}",
                                metadata.transactionalId(),
                                e.getMessage());
                    }
                }
            }
            LOG.info(
                    "transaction coordinator loaded: transactionalIds={} ongoing={} finishedAfterRestart={}",
                    transactions.size(),
                    ongoing,
                    finished);
        } finally {
            lock.unlock();
        }
    }

    /** The check the partition logs make before a transaction's first batch enters them. */
    public TransactionVerifier verifier() {
        return open;
    }

    // ------------------------------------------------------------------ producer requests

    /**
     * InitProducerId with a {@code transactional.id}: binds the id to a producer id and a new epoch, fencing every
     * older producer of the id, and aborts the transaction an older producer left open. With {@code
     * expectedProducerId >= 0} (KIP-360, a producer bumping its own epoch), the id must still be bound to that producer
     * and epoch.
     */
    public InitResult initProducerId(
            final String transactionalId,
            final int timeoutMs,
            final long expectedProducerId,
            final short expectedEpoch) {
        if (timeoutMs <= 0 || timeoutMs > settings.maxTimeoutMs()) {
            return InitResult.failed(Errors.INVALID_TRANSACTION_TIMEOUT);
        }
        lock.lock();
        try {
            if (closed) {
                return InitResult.failed(Errors.NOT_COORDINATOR);
            }
            final long now = clock.millis();
            TransactionMetadata metadata = transactions.get(transactionalId);
            if (metadata == null) {
                final TransactionMetadata fresh =
                        TransactionMetadata.fresh(transactionalId, producerIds.nextId(), timeoutMs, now);
                persist(fresh);
                return new InitResult(Errors.NONE, fresh.producerId(), fresh.producerEpoch());
            }
            if (expectedProducerId >= 0 && !metadata.isCurrent(expectedProducerId, expectedEpoch)) {
                return InitResult.failed(Errors.PRODUCER_FENCED);
            }
            if (metadata.state().isPreparing() && !tryComplete(metadata)) {
                return InitResult.failed(Errors.CONCURRENT_TRANSACTIONS);
            }
            metadata = transactions.get(transactionalId);
            if (metadata.state() == TransactionState.ONGOING) {
                LOG.info(
                        "fencing producerId={} epoch={} of transactionalId={}: a new producer initialised, its open"
                                + " transaction is aborted",
                        metadata.producerId(),
                        metadata.producerEpoch(),
                        transactionalId);
                if (!fenceAndAbort(metadata)) {
                    return InitResult.failed(Errors.CONCURRENT_TRANSACTIONS);
                }
                metadata = transactions.get(transactionalId);
            }
            final short nextEpoch = metadata.nextEpoch();
            final TransactionMetadata bumped = nextEpoch < 0
                    ? metadata.withProducer(producerIds.nextId(), (short) 0, timeoutMs, now)
                    : metadata.withProducer(metadata.producerId(), nextEpoch, timeoutMs, now);
            persist(bumped.inState(TransactionState.EMPTY, now));
            return new InitResult(Errors.NONE, bumped.producerId(), bumped.producerEpoch());
        } catch (final StateWriteException e) {
            return InitResult.failed(e.error());
        } finally {
            lock.unlock();
        }
    }

    /**
     * AddPartitionsToTxn: the partitions join the producer's transaction (which opens if none is). All or none: if one
     * partition does not exist, it gets UNKNOWN_TOPIC_OR_PARTITION, the others OPERATION_NOT_ATTEMPTED, and nothing is
     * added. With {@code verifyOnly}, nothing is added either: each partition is NONE if it is in the open transaction,
     * INVALID_TXN_STATE if not.
     */
    public Map<TopicPartition, Errors> addPartitions(
            final String transactionalId,
            final long producerId,
            final short epoch,
            final Collection<TopicPartition> requested,
            final boolean verifyOnly) {
        lock.lock();
        try {
            if (closed) {
                return uniform(requested, Errors.NOT_COORDINATOR);
            }
            final TransactionMetadata metadata = transactions.get(transactionalId);
            Errors error = check(metadata, producerId, epoch);
            if (error == Errors.NONE && verifyOnly) {
                final Map<TopicPartition, Errors> verdicts = new LinkedHashMap<>();
                for (final TopicPartition partition : requested) {
                    verdicts.put(
                            partition,
                            metadata.state() == TransactionState.ONGOING
                                            && metadata.partitions().contains(partition)
                                    ? Errors.NONE
                                    : Errors.INVALID_TXN_STATE);
                }
                return verdicts;
            }
            if (error == Errors.NONE && metadata.state().isPreparing() && !tryComplete(metadata)) {
                error = Errors.CONCURRENT_TRANSACTIONS;
            }
            if (error != Errors.NONE) {
                return uniform(requested, error);
            }
            final List<TopicPartition> unknown = new ArrayList<>();
            for (final TopicPartition partition : requested) {
                if (!partitionExists.test(partition)) {
                    unknown.add(partition);
                }
            }
            if (!unknown.isEmpty()) {
                final Map<TopicPartition, Errors> verdicts = uniform(requested, Errors.OPERATION_NOT_ATTEMPTED);
                unknown.forEach(partition -> verdicts.put(partition, Errors.UNKNOWN_TOPIC_OR_PARTITION));
                return verdicts;
            }
            final TransactionMetadata current = transactions.get(transactionalId);
            if (current.state() != TransactionState.ONGOING
                    || !current.partitions().containsAll(requested)) {
                persistOpen(current.withPartitions(requested, clock.millis()));
            }
            return uniform(requested, Errors.NONE);
        } catch (final StateWriteException e) {
            return uniform(requested, e.error());
        } finally {
            lock.unlock();
        }
    }

    /**
     * AddOffsetsToTxn: offsets of {@code groupId} may be committed in the producer's transaction. In a cluster the
     * group's {@code __consumer_offsets} partition joins the transaction, as in Kafka, so that its marker tells the
     * group's coordinator to apply or drop them.
     */
    public Errors addOffsets(
            final String transactionalId, final long producerId, final short epoch, final String groupId) {
        if (groupId == null || groupId.isEmpty()) {
            return Errors.INVALID_GROUP_ID;
        }
        lock.lock();
        try {
            if (closed) {
                return Errors.NOT_COORDINATOR;
            }
            final TransactionMetadata metadata = transactions.get(transactionalId);
            final Errors error = check(metadata, producerId, epoch);
            if (error != Errors.NONE) {
                return error;
            }
            if (metadata.state().isPreparing() && !tryComplete(metadata)) {
                return Errors.CONCURRENT_TRANSACTIONS;
            }
            final TransactionMetadata current = transactions.get(transactionalId);
            final Optional<TopicPartition> offsetsPartition = groupOffsetsPartition.apply(groupId);
            if (offsetsPartition.isPresent()) {
                if (current.state() != TransactionState.ONGOING
                        || !current.partitions().contains(offsetsPartition.get())) {
                    persistOpen(current.withPartitions(List.of(offsetsPartition.get()), clock.millis()));
                }
            } else if (current.state() != TransactionState.ONGOING
                    || !current.pendingOffsets().containsKey(groupId)) {
                persistOpen(current.withGroup(groupId, clock.millis()));
            }
            return Errors.NONE;
        } catch (final StateWriteException e) {
            return e.error();
        } finally {
            lock.unlock();
        }
    }

    /**
     * TxnOffsetCommit, after the group coordinator checked the committing member: the offsets become part of the open
     * transaction, to be applied to the group if it commits. The group must have been added with AddOffsetsToTxn.
     */
    public Errors stageOffsets(
            final String transactionalId,
            final long producerId,
            final short epoch,
            final String groupId,
            final Map<TopicPartition, CommittedOffset> offsets) {
        lock.lock();
        try {
            if (closed) {
                return Errors.NOT_COORDINATOR;
            }
            final TransactionMetadata metadata = transactions.get(transactionalId);
            final Errors error = check(metadata, producerId, epoch);
            if (error != Errors.NONE) {
                return error;
            }
            if (metadata.state() != TransactionState.ONGOING
                    || !metadata.pendingOffsets().containsKey(groupId)) {
                return Errors.INVALID_TXN_STATE;
            }
            persist(metadata.withOffsets(groupId, offsets, clock.millis()));
            return Errors.NONE;
        } catch (final StateWriteException e) {
            return e.error();
        } finally {
            lock.unlock();
        }
    }

    /** EndTxn: commits or aborts the producer's transaction. A retry of an end that already happened succeeds. */
    public Errors endTransaction(
            final String transactionalId, final long producerId, final short epoch, final boolean commit) {
        lock.lock();
        try {
            if (closed) {
                return Errors.NOT_COORDINATOR;
            }
            final TransactionMetadata metadata = transactions.get(transactionalId);
            final Errors error = check(metadata, producerId, epoch);
            if (error != Errors.NONE) {
                return error;
            }
            final TransactionState prepare = commit ? TransactionState.PREPARE_COMMIT : TransactionState.PREPARE_ABORT;
            final TransactionState complete =
                    commit ? TransactionState.COMPLETE_COMMIT : TransactionState.COMPLETE_ABORT;
            return switch (metadata.state()) {
                case ONGOING -> {
                    final TransactionMetadata prepared = prepare(metadata, prepare);
                    yield tryComplete(prepared) ? Errors.NONE : Errors.CONCURRENT_TRANSACTIONS;
                }
                case PREPARE_COMMIT, PREPARE_ABORT ->
                    metadata.state() != prepare
                            ? Errors.INVALID_TXN_STATE
                            : tryComplete(metadata) ? Errors.NONE : Errors.CONCURRENT_TRANSACTIONS;
                case COMPLETE_COMMIT, COMPLETE_ABORT ->
                    metadata.state() == complete ? Errors.NONE : Errors.INVALID_TXN_STATE;
                case EMPTY -> Errors.INVALID_TXN_STATE;
            };
        } catch (final StateWriteException e) {
            return e.error();
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------ queries

    /** DescribeTransactions of one id, empty if the coordinator does not know it. */
    public Optional<TransactionDescription> describe(final String transactionalId) {
        lock.lock();
        try {
            return Optional.ofNullable(transactions.get(transactionalId)).map(TransactionCoordinator::description);
        } finally {
            lock.unlock();
        }
    }

    /** ListTransactions: the ids whose description passes {@code filter}. */
    public List<TransactionDescription> list(final Predicate<TransactionDescription> filter) {
        lock.lock();
        try {
            final List<TransactionDescription> listed = new ArrayList<>();
            for (final TransactionMetadata metadata : transactions.values()) {
                final TransactionDescription description = description(metadata);
                if (filter.test(description)) {
                    listed.add(description);
                }
            }
            return listed;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The partitions of {@code groupId} whose offsets an open or ending transaction holds, not applied yet: an
     * OffsetFetch that requires stable offsets is answered UNSTABLE_OFFSET_COMMIT for them (KIP-447). A transaction's
     * offsets are applied before it is recorded complete, so they stop being pending only once they are the group's.
     */
    public Set<TopicPartition> pendingOffsetPartitions(final String groupId) {
        lock.lock();
        try {
            final Set<TopicPartition> pending = new HashSet<>();
            for (final TransactionMetadata metadata : transactions.values()) {
                pending.addAll(metadata.pendingOffsets()
                        .getOrDefault(groupId, Map.of())
                        .keySet());
            }
            return pending;
        } finally {
            lock.unlock();
        }
    }

    private static TransactionDescription description(final TransactionMetadata metadata) {
        return new TransactionDescription(
                metadata.transactionalId(),
                metadata.state(),
                metadata.producerId(),
                metadata.producerEpoch(),
                metadata.timeoutMs(),
                metadata.startTimestampMs(),
                metadata.partitions());
    }

    // ------------------------------------------------------------------ timers

    /**
     * Aborts every transaction open longer than its timeout and fences its producer (the epoch is bumped, so its next
     * request fails with PRODUCER_FENCED); also retries ending transactions whose markers could not be written.
     */
    void abortTimedOutTransactions() {
        lock.lock();
        try {
            final long now = clock.millis();
            final List<TransactionMetadata> all = closed ? List.of() : List.copyOf(transactions.values());
            for (final TransactionMetadata metadata : all) {
                try {
                    endIfDue(metadata, now);
                } catch (final StateWriteException e) {
                    // This one is tried again next round; the others go on now.
                    LOG.warn(
                            "transaction of transactionalId={} not ended now: {}",
                            metadata.transactionalId(),
                            e.getMessage());
                }
            }
        } catch (final RuntimeException e) {
            // The timer must keep running; the failure is reported and the next round retries.
            LOG.error("transaction timeout check failed", e);
        } finally {
            lock.unlock();
        }
    }

    /** Retries ending a prepared transaction, or aborts an open one past its timeout (lock held). */
    private void endIfDue(final TransactionMetadata metadata, final long now) {
        if (metadata.state().isPreparing()) {
            tryComplete(metadata);
        } else if (metadata.state() == TransactionState.ONGOING
                && now - metadata.startTimestampMs() > metadata.timeoutMs()) {
            LOG.info(
                    "aborting transaction of transactionalId={} producerId={} epoch={}: open for {} ms,"
                            + " transaction.timeout.ms={}",
                    metadata.transactionalId(),
                    metadata.producerId(),
                    metadata.producerEpoch(),
                    now - metadata.startTimestampMs(),
                    metadata.timeoutMs());
            fenceAndAbort(metadata);
        }
    }

    /** Forgets ids idle with no transaction open for longer than {@code transactional.id.expiration.ms}. */
    void removeExpiredTransactionalIds() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            final long now = clock.millis();
            final List<String> expired = new ArrayList<>();
            for (final TransactionMetadata metadata : transactions.values()) {
                if (metadata.state().isIdle() && now - metadata.lastUpdateTimestampMs() > settings.idExpirationMs()) {
                    expired.add(metadata.transactionalId());
                }
            }
            for (final String transactionalId : expired) {
                stateLog.remove(transactionalId);
                transactions.remove(transactionalId);
            }
            if (!expired.isEmpty()) {
                LOG.info("removed {} expired transactional ids", expired.size());
                stateLog.compactIfDue(transactions.values());
            }
        } catch (final RuntimeException e) {
            LOG.error("transactional id expiration failed", e);
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------ transitions (lock held)

    /** NONE, or why a request of {@code producerId} at {@code epoch} may not touch this id's transaction. */
    private static Errors check(final TransactionMetadata metadata, final long producerId, final short epoch) {
        if (metadata == null || metadata.producerId() != producerId) {
            return Errors.INVALID_PRODUCER_ID_MAPPING;
        }
        if (metadata.producerEpoch() != epoch) {
            return Errors.PRODUCER_FENCED;
        }
        return Errors.NONE;
    }

    /** Writes {@code next} to the state log, then makes it the id's state. */
    private void persist(final TransactionMetadata next) {
        stateLog.write(next);
        transactions.put(next.transactionalId(), next);
        try {
            stateLog.compactIfDue(transactions.values());
        } catch (final StateWriteException e) {
            // The state is written; compaction is tried again after the next write.
            LOG.warn("transaction state log not compacted now: {}", e.getMessage());
        }
    }

    /** Persists an open transaction that grew, and lets its partitions take its data. */
    private void persistOpen(final TransactionMetadata grown) {
        persist(grown);
        open.open(grown);
    }

    /** Decides the transaction's outcome: durable from here, and no new data may enter its partitions. */
    private TransactionMetadata prepare(final TransactionMetadata metadata, final TransactionState prepareState) {
        final TransactionMetadata prepared = metadata.inState(prepareState, clock.millis());
        persist(prepared);
        open.close(prepared.producerId());
        return prepared;
    }

    /**
     * Writes the markers of a prepared transaction, applies its offsets on commit and records it complete. Returns
     * false, with the failure logged and the transaction left prepared for a later retry, if a partition could not
     * take its marker.
     */
    private boolean tryComplete(final TransactionMetadata prepared) {
        final boolean commit = prepared.state() == TransactionState.PREPARE_COMMIT;
        try {
            markers.write(prepared, commit, coordinatorEpoch);
            if (commit) {
                prepared.pendingOffsets().forEach(groups::commitTransactionalOffsets);
            }
        } catch (final RuntimeException e) {
            LOG.error(
                    "could not end transaction of transactionalId={} producerId={} epoch={} commit={}; retried by the"
                            + " timer",
                    prepared.transactionalId(),
                    prepared.producerId(),
                    prepared.producerEpoch(),
                    commit,
                    e);
            return false;
        }
        persist(prepared.completed(
                commit ? TransactionState.COMPLETE_COMMIT : TransactionState.COMPLETE_ABORT, clock.millis()));
        return true;
    }

    /**
     * Aborts an open transaction at a bumped epoch: the markers carry the new epoch, so the partitions refuse the old
     * producer's batches from then on, and its next request to the coordinator is fenced.
     */
    private boolean fenceAndAbort(final TransactionMetadata metadata) {
        final short nextEpoch = metadata.nextEpoch();
        final TransactionMetadata fenced = nextEpoch < 0
                ? metadata
                : metadata.withProducer(metadata.producerId(), nextEpoch, metadata.timeoutMs(), clock.millis());
        return tryComplete(prepare(fenced, TransactionState.PREPARE_ABORT));
    }

    private static Map<TopicPartition, Errors> uniform(
            final Collection<TopicPartition> partitions, final Errors error) {
        final Map<TopicPartition, Errors> verdicts = new HashMap<>();
        for (final TopicPartition partition : partitions) {
            verdicts.put(partition, error);
        }
        return verdicts;
    }

    @Override
    public void close() {
        scheduled.forEach(future -> future.cancel(false));
        if (ownsShared) {
            timers.shutdownNow();
        }
        lock.lock();
        try {
            closed = true;
            if (ownsShared) {
                markers.close();
            }
            stateLog.close();
        } finally {
            lock.unlock();
        }
    }
}
