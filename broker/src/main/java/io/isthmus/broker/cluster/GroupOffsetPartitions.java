package io.isthmus.broker.cluster;

import io.isthmus.broker.api.CoordinatorLocator.Located;
import io.isthmus.broker.config.InternalTopicSettings;
import io.isthmus.broker.group.CommittedOffset;
import io.isthmus.broker.group.GroupMembership;
import io.isthmus.broker.group.GroupOffsetsLog;
import io.isthmus.broker.group.OffsetStore;
import io.isthmus.broker.group.TransactionalOffsets;
import io.isthmus.broker.partition.Partition;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.transaction.StateWriteException;
import io.isthmus.metadata.image.ClusterImage;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.InstantSource;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The committed offsets of a cluster's consumer groups, Kafka's way: in the replicated internal topic {@code
 * __consumer_offsets}, a group belonging to partition {@code abs(hash(group id)) % partitions}, whose leader is the
 * group's coordinator. This broker keeps the offsets of each partition it leads ({@link GroupOffsetsLog}, loaded from
 * the partition's log when it is elected, see {@link PartitionCoordinators}) and answers for no other group:
 *
 * <ul>
 *   <li>a commit is appended as the partition's leader and answered once {@code min.insync.replicas} in-sync replicas
 *       hold it ({@code offsets.commit.timeout.ms} at most, then COORDINATOR_NOT_AVAILABLE), so the coordinator
 *       elected after this broker fails has every acknowledged offset;
 *   <li>a partition's commits are written one after another, in the order they came, on this class's threads, never
 *       on a network thread, and no thread waits while followers fetch them;
 *   <li>when a partition's leadership leaves this broker, the groups of that partition are forgotten here: their
 *       members get NOT_COORDINATOR, find the new coordinator and join it;
 *   <li>offsets committed in a transaction (TxnOffsetCommit) are written to the group's partition as the producer's
 *       transactional batch, once the transaction's coordinator confirmed that the partition is in the producer's open
 *       transaction (AddOffsetsToTxn put it there; KIP-890's verification), and wait there for the transaction's
 *       marker, which the coordinator sends this partition's leader with WriteTxnMarkers as to any partition of the
 *       transaction ({@link #writeMarker}): applied to the group on COMMIT, dropped on ABORT. A coordinator elected
 *       after this one finds them, and the markers, in the log.
 * </ul>
 */
final class GroupOffsetPartitions implements OffsetStore, TransactionalOffsets {
    private static final Logger LOG = LoggerFactory.getLogger(GroupOffsetPartitions.class);
    private static final int THREADS = 2;

    private final ClusterMembership membership;
    private final InternalTopic topic;
    private final ExecutorService executor;
    private final ScheduledExecutorService timers;
    private final PartitionCoordinators<LedOffsets> coordinators;
    /** Forgets a moved partition's groups in the group coordinator (set once the coordinator exists). */
    private volatile Consumer<Predicate<String>> forgetGroups = groups -> {};
    /** Hands a loaded partition's memberships to the group coordinator (set once the coordinator exists). */
    private volatile Consumer<Collection<GroupMembership>> restoreGroups = memberships -> {};
    /** Asks transactions' coordinators about the producers committing offsets here (set once transactions start). */
    private volatile TransactionVerification verification;

    GroupOffsetPartitions(
            final ClusterMembership membership,
            final PartitionManager partitions,
            final InternalTopicSettings settings) {
        this.membership = membership;
        this.topic = new InternalTopic(GroupOffsetsLog.TOPIC, "group", settings, membership);
        final int nodeId = membership.nodeId();
        this.executor = Executors.newFixedThreadPool(THREADS, runnable -> {
            final Thread thread = new Thread(runnable, "broker-" + nodeId + "-group-offsets");
            thread.setDaemon(true);
            return thread;
        });
        this.timers = Executors.newSingleThreadScheduledExecutor(runnable -> {
            final Thread thread = new Thread(runnable, "broker-" + nodeId + "-group-offsets-timer");
            thread.setDaemon(true);
            return thread;
        });
        this.coordinators = new PartitionCoordinators<>(topic, membership, partitions, this::load, executor, timers);
    }

    /**
     * The offsets of one {@code __consumer_offsets} partition this broker leads, in the leader epoch it was elected in.
     * Its changes run one at a time, in the order submitted, each starting once the one before is durable (or failed);
     * none holds a thread while the followers fetch. A commit is answered before the compaction it may set off.
     */
    private final class LedOffsets implements PartitionCoordinators.Retirable {
        final int index;
        final Partition partition;
        final int leaderEpoch;
        final GroupOffsetsLog log;
        /** The last change submitted, failures swallowed: what the next one waits for. */
        private CompletableFuture<Void> last = CompletableFuture.completedFuture(null);
        /** Set once retired: no change is taken from then on. */
        private boolean retired;

        LedOffsets(final Partition partition, final int leaderEpoch, final GroupOffsetsLog log) {
            this.index = partition.topicPartition().partition();
            this.partition = partition;
            this.leaderEpoch = leaderEpoch;
            this.log = log;
        }

        /** Runs {@code change} after the changes before it, on this store's threads; completes as it does. */
        synchronized <T> CompletableFuture<T> change(final Function<GroupOffsetsLog, CompletableFuture<T>> change) {
            if (retired) {
                return CompletableFuture.failedFuture(
                        Errors.NOT_COORDINATOR.exception(topic.name() + "-" + index + " is no longer led here"));
            }
            final CompletableFuture<T> done = last.thenComposeAsync(ignored -> change.apply(log), executor);
            last = done.handle((ignored, failure) -> null);
            return done;
        }

        /**
         * Appends the marker after the changes before it (so after the offsets its transaction committed here) and,
         * once the in-sync replicas hold it, applies or drops the producer's offsets. A marker the partition did not
         * need changes nothing: a newer one of the producer ended its transaction here already. Once the marker is in
         * the log, the producer's next transaction must be verified again before it commits offsets here.
         */
        CompletableFuture<Void> endTransaction(
                final MemorySegment marker, final long producerId, final short producerEpoch, final boolean commit) {
            final TransactionVerification verifying = verification;
            return compactingAfter(
                    change(l -> topic.appendMarkerReplicatedAsync(partition, leaderEpoch, marker, producerId, () -> {
                                if (verifying != null) {
                                    verifying.markerWritten(producerId, partition.topicPartition());
                                }
                            })
                            .thenAccept(written -> {
                                if (written) {
                                    l.endTransaction(producerId, producerEpoch, commit);
                                }
                            })));
        }

        CompletableFuture<Void> commit(final String groupId, final Map<TopicPartition, CommittedOffset> offsets) {
            return compactingAfter(change(l -> l.commit(groupId, offsets)));
        }

        /**
         * {@code written}, a change that adds to the log, followed by compaction if a segment filled: after every kind
         * of write, so that a partition that only transactions write (an exactly-once loop commits no other way)
         * compacts too.
         */
        <T> CompletableFuture<T> compactingAfter(final CompletableFuture<T> written) {
            // Only after a change that went through: one that failed may have found the partition led elsewhere.
            change(l -> written.isCompletedExceptionally() ? CompletableFuture.completedFuture(null) : l.compactIfDue())
                    .whenComplete((ignored, failure) -> {
                        if (failure != null) {
                            LOG.warn(
                                    "broker {}: compacting {}-{} failed, tried again once another segment fills: {}",
                                    membership.nodeId(),
                                    topic.name(),
                                    index,
                                    failure.toString());
                        }
                    });
            return written;
        }

        Map<TopicPartition, CommittedOffset> committed(final String groupId) {
            return log.committed(groupId);
        }

        /**
         * Retired: the groups of this partition are coordinated elsewhere now, and are forgotten here at once; the log
         * is let go once the changes in flight are done (they fail: the partition is not led here in their epoch), so
         * a successor elected here reads a log no predecessor still writes.
         */
        @Override
        public CompletableFuture<Void> retire() {
            final int count =
                    topic.in(membership.image()).map(t -> t.partitions().size()).orElse(0);
            if (count > 0) {
                forgetGroups.accept(groupId -> InternalTopic.partitionFor(groupId, count) == index);
            }
            synchronized (this) {
                retired = true;
                return last.thenRun(log::close);
            }
        }

        @Override
        public void close() {
            retire();
        }
    }

    private LedOffsets load(final Partition partition, final int leaderEpoch) {
        // Completed on this store's threads: the next change runs there, never on the thread that moved the high
        // watermark (a follower's fetch, under the partition's locks).
        final GroupOffsetsLog log = GroupOffsetsLog.load(
                partition.log(),
                batch -> topic.appendReplicatedAsync(partition, leaderEpoch, batch)
                        .whenCompleteAsync((ignored, failure) -> {}, executor),
                InstantSource.system());
        // Before the partition counts as loaded: no request of its groups is let in until they are restored.
        restoreGroups.accept(log.memberships());
        return new LedOffsets(partition, leaderEpoch, log);
    }

    /**
     * Hands this store the way to forget groups in the broker's group coordinator, called when a partition's
     * leadership leaves this broker (the coordinator is built after this store, around it).
     */
    void forgetGroupsWith(final Consumer<Predicate<String>> forget) {
        this.forgetGroups = forget;
    }

    /**
     * Hands this store the way to restore groups in the broker's group coordinator from the memberships a partition's
     * previous leader wrote, called when this broker has loaded a partition it was elected to lead.
     */
    void restoreGroupsWith(final Consumer<Collection<GroupMembership>> restore) {
        this.restoreGroups = restore;
    }

    /**
     * Writes a group's settled membership to its partition, after the changes before it; fails NOT_COORDINATOR where
     * this broker does not coordinate the group now.
     */
    CompletableFuture<Void> storeMembership(final GroupMembership settled) {
        final PartitionCoordinators.Lookup<LedOffsets> here = coordinators.coordinatorOf(settled.groupId());
        if (here.error() != Errors.NONE) {
            return CompletableFuture.failedFuture(here.error()
                    .exception("broker " + membership.nodeId() + " does not coordinate group " + settled.groupId()));
        }
        final LedOffsets led = here.coordinator();
        return led.compactingAfter(led.change(log -> log.storeMembership(settled)));
    }

    /**
     * Hands this store the verification that asks a transaction's coordinator whether a producer's transaction includes
     * a partition (started with the broker's transaction coordinators, after this store).
     */
    void verifyTransactionsWith(final TransactionVerification verifying) {
        this.verification = verifying;
    }

    /**
     * The partition of {@code __consumer_offsets} that holds the group's offsets: in the topic as it is, or as it will
     * be created ({@code offsets.topic.num.partitions}) while it does not exist yet.
     */
    TopicPartition partitionOf(final String groupId) {
        return topic.placementOf(groupId);
    }

    /** FindCoordinator for a group: the leader of its offsets partition, creating the topic if need be. */
    Located locate(final String groupId, final String listenerName) {
        return topic.locate(groupId, listenerName);
    }

    /** NONE if this broker coordinates {@code groupId} now, else the error its requests get. */
    Errors coordination(final String groupId) {
        return coordinators.coordinatorOf(groupId).error();
    }

    /** Called on the partition-hosting thread after this broker's partitions took their roles in {@code image}. */
    void onPartitionsApplied(final ClusterImage image) {
        coordinators.onPartitionsApplied(image);
    }

    @Override
    public CompletableFuture<Void> commitAsync(
            final String groupId, final Map<TopicPartition, CommittedOffset> offsets) {
        final PartitionCoordinators.Lookup<LedOffsets> here = coordinators.coordinatorOf(groupId);
        if (here.error() != Errors.NONE) {
            return CompletableFuture.failedFuture(here.error()
                    .exception("broker " + membership.nodeId() + " does not coordinate group " + groupId + " now"));
        }
        return here.coordinator()
                .commit(groupId, offsets)
                .exceptionallyCompose(failure -> CompletableFuture.failedFuture(
                        failed("offsets of group " + groupId + " not committed", failure)));
    }

    /** Why a change of a partition's offsets failed, as the exception carrying Kafka's error for it where there is one. */
    private static Throwable failed(final String what, final Throwable failure) {
        final Throwable cause =
                failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        final String why = what + ": " + cause.getMessage();
        if (cause instanceof StateWriteException refused) {
            return refused.error().exception(why);
        }
        if (cause instanceof RejectedExecutionException) {
            // This broker is closing.
            return Errors.NOT_COORDINATOR.exception(why);
        }
        return cause;
    }

    /**
     * TxnOffsetCommit here: once the transaction's coordinator confirms that the group's partition is in the
     * producer's open transaction, the offsets are written as the producer's transactional batch and held until its
     * marker comes.
     */
    @Override
    public CompletableFuture<Errors> stage(
            final String transactionalId,
            final long producerId,
            final short producerEpoch,
            final String groupId,
            final Map<TopicPartition, CommittedOffset> offsets) {
        final PartitionCoordinators.Lookup<LedOffsets> here = coordinators.coordinatorOf(groupId);
        if (here.error() != Errors.NONE) {
            return CompletableFuture.completedFuture(here.error());
        }
        final TransactionVerification verifying = verification;
        if (verifying == null) {
            return CompletableFuture.completedFuture(Errors.COORDINATOR_NOT_AVAILABLE);
        }
        final LedOffsets led = here.coordinator();
        return verifying
                .verify(transactionalId, producerId, producerEpoch, led.partition.topicPartition())
                .thenCompose(verified -> switch (verified) {
                    case NONE ->
                        led.compactingAfter(led.change(
                                        log -> log.commitTransactional(groupId, producerId, producerEpoch, offsets)))
                                .handle((ignored, failure) -> failure == null
                                        ? Errors.NONE
                                        : Errors.forException(failed(
                                                "transactional offsets of group " + groupId + " not written",
                                                failure)));
                    // TxnOffsetCommit's retriable answer: the client finds the coordinator again and retries.
                    case NOT_ENOUGH_REPLICAS -> CompletableFuture.completedFuture(Errors.COORDINATOR_NOT_AVAILABLE);
                    case INVALID_PRODUCER_EPOCH -> CompletableFuture.completedFuture(Errors.PRODUCER_FENCED);
                    default -> CompletableFuture.completedFuture(verified);
                });
    }

    @Override
    public Set<TopicPartition> pending(final String groupId) {
        final PartitionCoordinators.Lookup<LedOffsets> here = coordinators.coordinatorOf(groupId);
        return here.error() == Errors.NONE ? here.coordinator().log.pendingPartitions(groupId) : Set.of();
    }

    /**
     * WriteTxnMarkers for partition {@code index} of {@code __consumer_offsets}: appends the marker as its leader and,
     * once the in-sync replicas hold it, applies (COMMIT) or drops (ABORT) the offsets the producer's transaction
     * committed there. Answers NOT_LEADER_OR_FOLLOWER where this broker does not coordinate the partition's groups now
     * (the transaction's coordinator sends it again to the leader it then finds), and COORDINATOR_LOAD_IN_PROGRESS
     * while it is loading them.
     */
    CompletableFuture<Errors> writeMarker(
            final int index,
            final MemorySegment marker,
            final long producerId,
            final short producerEpoch,
            final boolean commit) {
        final PartitionCoordinators.Lookup<LedOffsets> here = coordinators.coordinatorOfPartition(index);
        if (here.error() != Errors.NONE) {
            return CompletableFuture.completedFuture(
                    here.error() == Errors.NOT_COORDINATOR ? Errors.NOT_LEADER_OR_FOLLOWER : here.error());
        }
        // The request's buffer is reused for its next marker while this one waits for the changes before it.
        final MemorySegment own = MemorySegment.ofArray(marker.toArray(ValueLayout.JAVA_BYTE));
        return here.coordinator()
                .endTransaction(own, producerId, producerEpoch, commit)
                .handle((ignored, failure) -> {
                    if (failure == null) {
                        return Errors.NONE;
                    }
                    final Throwable cause = failed("marker not written to " + topic.name() + "-" + index, failure);
                    final Errors error = Errors.forException(cause);
                    LOG.warn(
                            "broker {}: marker of producerId={} commit={} not written to {}-{}: {}",
                            membership.nodeId(),
                            producerId,
                            commit,
                            topic.name(),
                            index,
                            cause.toString());
                    return switch (error) {
                        case NOT_COORDINATOR -> Errors.NOT_LEADER_OR_FOLLOWER;
                        case COORDINATOR_NOT_AVAILABLE -> Errors.NOT_ENOUGH_REPLICAS;
                        default -> error;
                    };
                });
    }

    @Override
    public void commit(final String groupId, final Map<TopicPartition, CommittedOffset> offsets) {
        try {
            commitAsync(groupId, offsets).join();
        } catch (final CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw e;
        }
    }

    @Override
    public Map<TopicPartition, CommittedOffset> committed(final String groupId) {
        final PartitionCoordinators.Lookup<LedOffsets> here = coordinators.coordinatorOf(groupId);
        if (here.error() != Errors.NONE) {
            throw here.error()
                    .exception("broker " + membership.nodeId() + " does not hold the offsets of group " + groupId
                            + " now");
        }
        return here.coordinator().committed(groupId);
    }

    @Override
    public Set<String> groupIds() {
        final Set<String> ids = new HashSet<>();
        for (final LedOffsets led : coordinators.all()) {
            ids.addAll(led.log.groupIds());
        }
        return ids;
    }

    /**
     * Tombstones the deleted topic's offsets in every partition led here (each partition's leader does its own), on
     * this store's threads; a failure is logged, and the offsets stay until a later deletion of the same name.
     */
    @Override
    public void deleteTopic(final String deleted) {
        for (final LedOffsets led : coordinators.all()) {
            led.change(log -> log.deleteTopic(deleted)).whenComplete((ignored, failure) -> {
                if (failure != null) {
                    LOG.warn(
                            "broker {}: the offsets of deleted topic {} stay in {}-{}: {}",
                            membership.nodeId(),
                            deleted,
                            topic.name(),
                            led.index,
                            failure.toString());
                }
            });
        }
    }

    @Override
    public void close() {
        coordinators.close();
        executor.shutdown();
        try {
            if (!executor.awaitTermination(10, TimeUnit.SECONDS)) {
                executor.shutdownNow();
            }
        } catch (final InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
        timers.shutdownNow();
    }
}
