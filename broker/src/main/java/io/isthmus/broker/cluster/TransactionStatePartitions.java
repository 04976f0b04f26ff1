package io.isthmus.broker.cluster;

import io.isthmus.broker.api.CoordinatorLocator.Located;
import io.isthmus.broker.config.InternalTopicSettings;
import io.isthmus.broker.partition.Partition;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.transaction.MarkerWriter;
import io.isthmus.broker.transaction.TransactionCoordinator;
import io.isthmus.broker.transaction.TransactionCoordinators;
import io.isthmus.broker.transaction.TransactionMetadata;
import io.isthmus.broker.transaction.TransactionStateLog;
import io.isthmus.metadata.image.ClusterImage;
import java.time.InstantSource;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.protocol.Errors;

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
    private static final int THREADS = 4;

    private final ClusterMembership membership;
    private final InternalTopic topic;
    private final TransactionCoordinator.Context context;
    private final ClusterMarkerWriter markers;
    private final ExecutorService executor;
    private final ScheduledExecutorService timers;
    private final PartitionCoordinators<TransactionCoordinator> coordinators;

    TransactionStatePartitions(
            final ClusterMembership membership,
            final PartitionManager partitions,
            final TransactionCoordinator.Context context,
            final InternalTopicSettings settings,
            final ClusterMarkerWriter markers) {
        this.membership = membership;
        this.topic = new InternalTopic(TransactionStateLog.TOPIC, "transaction", settings, membership);
        this.context = context;
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
        this.coordinators = new PartitionCoordinators<>(topic, membership, partitions, this::load, executor, timers);
    }

    // ------------------------------------------------------------------ finding coordinators

    /** FindCoordinator for a transactional id: the leader of its state partition, creating the topic if need be. */
    Located locate(final String transactionalId, final String listenerName) {
        return topic.locate(transactionalId, listenerName);
    }

    /** The broker coordinating {@code transactionalId} as this broker's image has it; empty without a leader. */
    OptionalInt coordinatorId(final String transactionalId) {
        return topic.leaderOf(transactionalId);
    }

    @Override
    public Found coordinatorOf(final String transactionalId) {
        final PartitionCoordinators.Lookup<TransactionCoordinator> here = coordinators.coordinatorOf(transactionalId);
        return here.error() == Errors.NONE ? new Found(Errors.NONE, here.coordinator()) : Found.none(here.error());
    }

    @Override
    public List<TransactionCoordinator> all() {
        return coordinators.all();
    }

    @Override
    public ExecutorService executor() {
        return executor;
    }

    // ------------------------------------------------------------------ elections

    /**
     * Called on the partition-hosting thread after this broker's partitions took their roles in {@code image}: elects
     * a coordinator for each state partition newly led here, and retires those of partitions no longer led here.
     */
    void onPartitionsApplied(final ClusterImage image) {
        coordinators.onPartitionsApplied(image);
    }

    /** Reads the state partition's log, then ends the transactions its predecessor left prepared. */
    private TransactionCoordinator load(final Partition partition, final int leaderEpoch) {
        final TransactionStateLog stateLog = TransactionStateLog.over(
                partition.log(),
                batch -> topic.appendReplicated(partition, leaderEpoch, batch),
                InstantSource.system());
        try {
            return TransactionCoordinator.load(stateLog, fenced(partition, leaderEpoch), leaderEpoch, context, timers);
        } catch (final RuntimeException e) {
            stateLog.close();
            throw e;
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

    @Override
    public void close() throws InterruptedException {
        coordinators.close();
        executor.shutdown();
        if (!executor.awaitTermination(10, TimeUnit.SECONDS)) {
            executor.shutdownNow();
        }
        timers.shutdownNow();
        markers.close();
    }
}
