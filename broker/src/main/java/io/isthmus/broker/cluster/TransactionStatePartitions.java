package io.isthmus.broker.cluster;

import io.isthmus.broker.api.CoordinatorLocator.Located;
import io.isthmus.broker.config.TransactionStateSettings;
import io.isthmus.broker.partition.Partition;
import io.isthmus.broker.partition.Partition.ProduceOutcome;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.transaction.MarkerWriter;
import io.isthmus.broker.transaction.StateWriteException;
import io.isthmus.broker.transaction.TransactionCoordinator;
import io.isthmus.broker.transaction.TransactionCoordinators;
import io.isthmus.broker.transaction.TransactionMetadata;
import io.isthmus.broker.transaction.TransactionStateLog;
import io.isthmus.metadata.image.BrokerRegistration;
import io.isthmus.metadata.image.ClusterImage;
import io.isthmus.metadata.image.PartitionState;
import io.isthmus.metadata.image.TopicImage;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transaction coordinators of a cluster, Kafka's way: the state of transactional ids lives in the replicated
 * internal topic {@code __transaction_state}, an id belongs to partition {@code abs(hash(id)) % partitions}, and the
 * leader of that partition is the id's coordinator. This broker runs one {@link TransactionCoordinator} for each state
 * partition it leads:
 *
 * <ul>
 *   <li><b>Election.</b> After each image this broker's partitions take their roles in, a partition it now leads (in
 *       the image's leader epoch, which the partition has taken) gets a coordinator, loaded on the coordinators' own
 *       threads: it reads the partition's log, then ends the transactions its predecessor left prepared. Until it is
 *       loaded its ids are answered COORDINATOR_LOAD_IN_PROGRESS. A partition it no longer leads loses its coordinator,
 *       and its ids are answered NOT_COORDINATOR; clients ask FindCoordinator again and go to the new leader.
 *   <li><b>Writes.</b> A coordinator's state change is appended as the partition's leader, in the leader epoch it was
 *       elected in, and counts once {@code transaction.state.log.min.isr} in-sync replicas hold it; otherwise the
 *       request is answered COORDINATOR_NOT_AVAILABLE (or NOT_COORDINATOR where leadership moved) and the state stays
 *       as it was. So a coordinator elected after a crash loads every state the old one acted on, and a stale
 *       coordinator (a broker paused past its session) cannot make a change count: its lease has run out, and its
 *       followers fetch from the new leader.
 *   <li><b>Markers</b> go to each partition's leader as WriteTxnMarkers ({@link ClusterMarkerWriter}), carrying the
 *       state partition's leader epoch as the coordinator epoch.
 *   <li><b>The topic</b> is created through the quorum on the first FindCoordinator for a transactional id (as Kafka
 *       creates it), with {@code transaction.state.log.num.partitions} partitions of {@code
 *       transaction.state.log.replication.factor} replicas; until enough brokers are up for that, coordinators are not
 *       available. Its logs never expire (a log compacts itself, {@link TransactionStateLog}).
 * </ul>
 *
 * <p>Requests to a coordinator run on a small pool of this class's threads, not on network threads: a write waits for
 * followers, and a marker may be sent to this same broker.
 */
final class TransactionStatePartitions implements TransactionCoordinators, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionStatePartitions.class);
    private static final int THREADS = 4;
    /** How long a state change waits for the in-sync replicas before it is answered COORDINATOR_NOT_AVAILABLE. */
    private static final Duration WRITE_TIMEOUT = Duration.ofSeconds(10);

    /** How soon the elections are run again after a coordinator failed to load. */
    private static final long RELOAD_DELAY_MS = 1000;

    /** A coordinator this broker runs, or is loading, for one state partition, in the leader epoch it was elected. */
    private record Elected(int leaderEpoch, CompletableFuture<TransactionCoordinator> coordinator) {}

    private final ClusterMembership membership;
    private final PartitionManager partitions;
    private final TransactionCoordinator.Context context;
    private final TransactionStateSettings settings;
    private final ClusterMarkerWriter markers;
    private final ExecutorService executor;
    private final ScheduledExecutorService timers;
    private final Map<Integer, Elected> elected = new ConcurrentHashMap<>();
    /** Per state partition, the retirement of its last coordinator: a successor loads only once that one is closed. */
    private final Map<Integer, CompletableFuture<Void>> retired = new ConcurrentHashMap<>();

    private ClusterImage lastImage;
    private final AtomicBoolean creating = new AtomicBoolean();
    private volatile boolean closed;

    TransactionStatePartitions(
            final ClusterMembership membership,
            final PartitionManager partitions,
            final TransactionCoordinator.Context context,
            final TransactionStateSettings settings,
            final ClusterMarkerWriter markers) {
        this.membership = membership;
        this.partitions = partitions;
        this.context = context;
        this.settings = settings;
        this.markers = markers;
        final int nodeId = membership.nodeId();
        this.executor = Executors.newFixedThreadPool(THREADS, runnable -> {
            final Thread thread = new Thread(runnable, "broker-" + nodeId + "-transaction-coordinator");
            thread.setDaemon(true);
            return thread;
        });
        // Several: a coordinator's timer task may wait on markers, and must not hold up the others' for that long.
        this.timers = Executors.newScheduledThreadPool(2, runnable -> {
            final Thread thread = new Thread(runnable, "broker-" + nodeId + "-transaction-timers");
            thread.setDaemon(true);
            return thread;
        });
    }

    // ------------------------------------------------------------------ finding coordinators

    /** The state partition of {@code transactionalId}, given the topic's partition count. */
    static int partitionFor(final String transactionalId, final int partitionCount) {
        return Utils.abs(transactionalId.hashCode()) % partitionCount;
    }

    /** FindCoordinator for a transactional id: the leader of its state partition, creating the topic if need be. */
    Located locate(final String transactionalId, final String listenerName) {
        final ClusterImage image = membership.image();
        final Optional<TopicImage> topic = image.topic(TransactionStateLog.TOPIC);
        if (topic.isEmpty()) {
            createTopic();
            return Located.none(
                    Errors.COORDINATOR_NOT_AVAILABLE,
                    "the transaction state topic " + TransactionStateLog.TOPIC + " is being created");
        }
        final PartitionState state = topic.get()
                .partition(
                        partitionFor(transactionalId, topic.get().partitions().size()));
        if (!state.hasLeader()) {
            return Located.none(
                    Errors.COORDINATOR_NOT_AVAILABLE,
                    "the transaction state partition of this transactional id has no leader");
        }
        final Optional<BrokerRegistration> broker = image.broker(state.leader());
        if (broker.isEmpty() || broker.get().fenced()) {
            return Located.none(
                    Errors.COORDINATOR_NOT_AVAILABLE, "broker " + state.leader() + ", the coordinator, is fenced");
        }
        return ImageMetadata.endpointOf(broker.get(), listenerName)
                .map(e -> new Located(Errors.NONE, null, state.leader(), e.host(), e.port()))
                .orElseGet(() -> Located.none(
                        Errors.COORDINATOR_NOT_AVAILABLE,
                        "broker " + state.leader() + ", the coordinator, has no listener " + listenerName));
    }

    /** The broker coordinating {@code transactionalId} as this broker's image has it; empty without a leader. */
    OptionalInt coordinatorId(final String transactionalId) {
        final Optional<TopicImage> topic = membership.image().topic(TransactionStateLog.TOPIC);
        if (topic.isEmpty()) {
            return OptionalInt.empty();
        }
        final PartitionState state = topic.get()
                .partition(
                        partitionFor(transactionalId, topic.get().partitions().size()));
        return state.hasLeader() ? OptionalInt.of(state.leader()) : OptionalInt.empty();
    }

    @Override
    public Found coordinatorOf(final String transactionalId) {
        final Optional<TopicImage> topic = membership.image().topic(TransactionStateLog.TOPIC);
        if (topic.isEmpty()) {
            return Found.none(Errors.NOT_COORDINATOR);
        }
        final Elected here = elected.get(
                partitionFor(transactionalId, topic.get().partitions().size()));
        if (here == null) {
            return Found.none(Errors.NOT_COORDINATOR);
        }
        if (!here.coordinator().isDone()) {
            return Found.none(Errors.COORDINATOR_LOAD_IN_PROGRESS);
        }
        if (here.coordinator().isCompletedExceptionally()) {
            return Found.none(Errors.COORDINATOR_NOT_AVAILABLE);
        }
        return new Found(Errors.NONE, here.coordinator().join());
    }

    @Override
    public List<TransactionCoordinator> all() {
        final List<TransactionCoordinator> running = new ArrayList<>();
        for (final Elected here : elected.values()) {
            if (here.coordinator().isDone() && !here.coordinator().isCompletedExceptionally()) {
                running.add(here.coordinator().join());
            }
        }
        return running;
    }

    @Override
    public ExecutorService executor() {
        return executor;
    }

    @Override
    public boolean offsetsInTransactions() {
        return false;
    }

    private void createTopic() {
        if (closed || !creating.compareAndSet(false, true)) {
            return;
        }
        final CreateTopicsRequestData create = new CreateTopicsRequestData().setTimeoutMs(30_000);
        create.topics()
                .add(new CreateTopicsRequestData.CreatableTopic()
                        .setName(TransactionStateLog.TOPIC)
                        .setNumPartitions(settings.partitions())
                        .setReplicationFactor(settings.replicationFactor()));
        membership.controller().createTopics(create).whenComplete((response, failure) -> {
            creating.set(false);
            if (failure != null) {
                LOG.warn("cannot create {} now: {}", TransactionStateLog.TOPIC, failure.toString());
                return;
            }
            final var result = response.topics().find(TransactionStateLog.TOPIC);
            final Errors error = result == null ? Errors.UNKNOWN_SERVER_ERROR : Errors.forCode(result.errorCode());
            if (error == Errors.NONE || error == Errors.TOPIC_ALREADY_EXISTS) {
                LOG.info(
                        "created {}: partitions={} replicationFactor={}",
                        TransactionStateLog.TOPIC,
                        settings.partitions(),
                        settings.replicationFactor());
            } else {
                LOG.warn(
                        "cannot create {} now ({}): {}; transactional producers wait",
                        TransactionStateLog.TOPIC,
                        error,
                        result == null ? "no answer" : result.errorMessage());
            }
        });
    }

    // ------------------------------------------------------------------ elections

    /**
     * Called on the partition-hosting thread after this broker's partitions took their roles in {@code image}: elects
     * a coordinator for each state partition newly led here, and retires those of partitions no longer led here.
     */
    synchronized void onPartitionsApplied(final ClusterImage image) {
        if (closed || (lastImage != null && image.appliedIndex() < lastImage.appliedIndex())) {
            return;
        }
        lastImage = image;
        final Optional<TopicImage> topic = image.topic(TransactionStateLog.TOPIC);
        final int count = topic.map(t -> t.partitions().size()).orElse(0);
        for (final Integer index : List.copyOf(elected.keySet())) {
            final PartitionState state = index < count ? topic.get().partition(index) : null;
            final Elected here = elected.get(index);
            // A coordinator that failed to load is elected anew (its partition's log may be readable now).
            if (state == null
                    || state.leader() != membership.nodeId()
                    || state.leaderEpoch() != here.leaderEpoch()
                    || here.coordinator().isCompletedExceptionally()) {
                retire(index, here);
            }
        }
        for (int index = 0; index < count; index++) {
            final PartitionState state = topic.get().partition(index);
            if (state.leader() != membership.nodeId() || elected.containsKey(index)) {
                continue;
            }
            final TopicPartition tp = new TopicPartition(TransactionStateLog.TOPIC, index);
            final Optional<Partition> local = partitions
                    .partition(tp)
                    .filter(p -> p.topicId().equals(topic.get().id()))
                    .filter(p -> p.leaderEpoch() == state.leaderEpoch());
            if (local.isPresent()) {
                elect(index, local.get(), state.leaderEpoch());
            }
        }
    }

    /**
     * Loads a coordinator of state partition {@code index} for {@code leaderEpoch}, once the previous coordinator of
     * the partition is closed (it may still be writing, and its last write must be in the log this one reads).
     */
    private void elect(final int index, final Partition partition, final int leaderEpoch) {
        final CompletableFuture<Void> predecessor =
                retired.getOrDefault(index, CompletableFuture.completedFuture(null));
        final CompletableFuture<TransactionCoordinator> loading = predecessor
                .exceptionally(failure -> null)
                .thenApplyAsync(ignored -> load(partition, leaderEpoch), executor);
        elected.put(index, new Elected(leaderEpoch, loading));
        loading.whenComplete((coordinator, failure) -> {
            if (failure != null) {
                LOG.error(
                        "broker {}: cannot load the transaction coordinator of {} in epoch {}; tried again in {} ms",
                        membership.nodeId(),
                        partition.topicPartition(),
                        leaderEpoch,
                        RELOAD_DELAY_MS,
                        failure);
                scheduleElections();
            } else {
                LOG.info(
                        "broker {}: coordinating the transactions of {} in epoch {}",
                        membership.nodeId(),
                        partition.topicPartition(),
                        leaderEpoch);
            }
        });
    }

    private TransactionCoordinator load(final Partition partition, final int leaderEpoch) {
        final TransactionStateLog stateLog = TransactionStateLog.over(
                partition.log(), batch -> appendReplicated(partition, leaderEpoch, batch), InstantSource.system());
        try {
            return TransactionCoordinator.load(stateLog, fenced(partition, leaderEpoch), leaderEpoch, context, timers);
        } catch (final RuntimeException e) {
            stateLog.close();
            throw e;
        }
    }

    /** Runs the elections again shortly, with the last image, so that a coordinator that failed to load is retried. */
    private void scheduleElections() {
        try {
            timers.schedule(this::electAgain, RELOAD_DELAY_MS, TimeUnit.MILLISECONDS);
        } catch (final RejectedExecutionException closing) {
            // closed meanwhile: nothing more is elected
        }
    }

    /** The elections with the newest image this broker's partitions took their roles in, under the same lock. */
    private synchronized void electAgain() {
        if (lastImage != null) {
            onPartitionsApplied(lastImage);
        }
    }

    /**
     * The marker writer of a coordinator elected in {@code leaderEpoch}: it writes only while this broker still leads
     * the state partition in that epoch (and its lease holds), so a coordinator that was superseded, or whose broker
     * was cut off, ends no transaction.
     */
    private MarkerWriter fenced(final Partition statePartition, final int leaderEpoch) {
        return new MarkerWriter() {
            @Override
            public void write(final TransactionMetadata metadata, final boolean commit, final int coordinatorEpoch) {
                final Errors leads = membership.leadership().check(statePartition, leaderEpoch);
                if (leads != Errors.NONE) {
                    throw new IllegalStateException("coordinator of " + statePartition.topicPartition() + " in epoch "
                            + leaderEpoch + " is superseded (" + leads + "); it writes no markers");
                }
                markers.write(metadata, commit, coordinatorEpoch);
            }

            @Override
            public void close() {
                // The writer is shared by this broker's coordinators and closed with them all.
            }
        };
    }

    private void retire(final int index, final Elected here) {
        elected.remove(index, here);
        // Closing takes the coordinator's lock, which a write waiting for followers may hold: not on this thread.
        retired.put(
                index,
                here.coordinator()
                        .thenAcceptAsync(TransactionCoordinator::close, executor)
                        .exceptionally(failure -> null));
        LOG.info(
                "broker {}: no longer coordinates the transactions of {}-{} (epoch {})",
                membership.nodeId(),
                TransactionStateLog.TOPIC,
                index,
                here.leaderEpoch());
    }

    /**
     * Appends a state batch as the partition's leader in {@code leaderEpoch} and waits until its in-sync replicas hold
     * it, or throws {@link StateWriteException}.
     */
    private void appendReplicated(final Partition partition, final int leaderEpoch, final MemorySegment batch) {
        final Errors leads = membership.leadership().check(partition, leaderEpoch);
        if (leads != Errors.NONE) {
            throw new StateWriteException(
                    Errors.NOT_COORDINATOR,
                    partition.topicPartition() + " is not led here in epoch " + leaderEpoch + ": " + leads);
        }
        final Optional<String> tooFew =
                partition.tooFewInSync(settings.minInsyncReplicas(), "transaction.state.log.min.isr");
        if (tooFew.isPresent()) {
            throw new StateWriteException(
                    Errors.COORDINATOR_NOT_AVAILABLE, partition.topicPartition() + ": " + tooFew.get());
        }
        final ProduceOutcome appended = partition.appendFromClient(batch);
        if (appended.error() == Errors.NONE && appended.leaderEpoch() != leaderEpoch) {
            // Leadership moved on (and came back) between the check and the append: the state belongs to the
            // coordinator of the newer epoch, which may have read the log already.
            throw new StateWriteException(
                    Errors.NOT_COORDINATOR,
                    partition.topicPartition() + " took epoch " + appended.leaderEpoch() + " under the coordinator of "
                            + leaderEpoch);
        }
        if (appended.error() != Errors.NONE) {
            throw new StateWriteException(
                    appended.error() == Errors.NOT_LEADER_OR_FOLLOWER
                            ? Errors.NOT_COORDINATOR
                            : Errors.COORDINATOR_NOT_AVAILABLE,
                    partition.topicPartition() + " refused a state: " + appended.error() + " " + appended.message());
        }
        final Errors replicated = partition
                .awaitReplication(
                        appended.lastOffset(),
                        appended.leaderEpoch(),
                        settings.minInsyncReplicas(),
                        WRITE_TIMEOUT.toMillis())
                .join();
        if (replicated != Errors.NONE) {
            throw new StateWriteException(
                    replicated == Errors.NOT_LEADER_OR_FOLLOWER
                            ? Errors.NOT_COORDINATOR
                            : Errors.COORDINATOR_NOT_AVAILABLE,
                    "state at offset " + appended.lastOffset() + " of " + partition.topicPartition()
                            + " not confirmed by the in-sync replicas: " + replicated);
        }
    }

    @Override
    public void close() throws InterruptedException {
        synchronized (this) {
            closed = true;
        }
        for (final Map.Entry<Integer, Elected> entry : elected.entrySet()) {
            entry.getValue().coordinator().thenAccept(TransactionCoordinator::close);
        }
        elected.clear();
        executor.shutdown();
        if (!executor.awaitTermination(10, TimeUnit.SECONDS)) {
            executor.shutdownNow();
        }
        timers.shutdownNow();
        markers.close();
    }
}
