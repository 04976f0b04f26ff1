package io.isthmus.broker.cluster;

import io.isthmus.broker.partition.Partition;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.metadata.image.ClusterImage;
import io.isthmus.metadata.image.PartitionState;
import io.isthmus.metadata.image.TopicImage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinators this broker runs for the partitions of an {@link InternalTopic} it leads, one per partition, as
 * leadership comes and goes:
 *
 * <ul>
 *   <li><b>Election.</b> After each image this broker's partitions take their roles in, a partition it now leads (in
 *       the image's leader epoch, which the partition has taken) gets a coordinator, loaded on {@code executor}: it
 *       reads the partition's log. Until it is loaded its keys are answered COORDINATOR_LOAD_IN_PROGRESS. A partition
 *       it no longer leads loses its coordinator, and its keys are answered NOT_COORDINATOR; clients ask
 *       FindCoordinator again and go to the new leader.
 *   <li><b>Succession.</b> A coordinator is loaded only once its partition's previous coordinator here is closed: that
 *       one may still be writing, and its last write must be in the log the successor reads.
 *   <li><b>Failure.</b> A coordinator that fails to load is elected anew a second later, with the newest image.
 * </ul>
 *
 * @param <C> the coordinator; closed when retired, on {@code executor} (closing may wait for a write in flight)
 */
final class PartitionCoordinators<C extends AutoCloseable> implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionCoordinators.class);

    /** How soon the elections are run again after a coordinator failed to load. */
    private static final long RELOAD_DELAY_MS = 1000;

    /** Loads the coordinator of a partition this broker leads in {@code leaderEpoch}, reading its log. */
    @FunctionalInterface
    interface Loader<C> {
        C load(Partition partition, int leaderEpoch);
    }

    /**
     * A coordinator whose retirement completes later, once the writes it has in flight are done: its successor here
     * loads only then. Others are retired by {@link AutoCloseable#close()}.
     */
    interface Retirable extends AutoCloseable {
        CompletableFuture<Void> retire();
    }

    /** A key's coordinator here, or why there is none: NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS ... */
    record Lookup<C>(Errors error, C coordinator, int partition, int leaderEpoch) {
        static <C> Lookup<C> none(final Errors error) {
            return new Lookup<>(error, null, -1, -1);
        }
    }

    /** A coordinator this broker runs, or is loading, for one partition, in the leader epoch it was elected. */
    private record Elected<C>(int leaderEpoch, CompletableFuture<C> coordinator) {}

    private final InternalTopic topic;
    private final ClusterMembership membership;
    private final PartitionManager partitions;
    private final Loader<C> loader;
    private final ExecutorService executor;
    private final ScheduledExecutorService timers;
    private final Map<Integer, Elected<C>> elected = new ConcurrentHashMap<>();
    /** Per partition, the retirement of its last coordinator: a successor loads only once that one is closed. */
    private final Map<Integer, CompletableFuture<Void>> retired = new ConcurrentHashMap<>();

    private ClusterImage lastImage;
    private volatile boolean closed;

    /**
     * @param executor runs loads and closes (not owned)
     * @param timers schedules a failed load's retry (not owned)
     */
    PartitionCoordinators(
            final InternalTopic topic,
            final ClusterMembership membership,
            final PartitionManager partitions,
            final Loader<C> loader,
            final ExecutorService executor,
            final ScheduledExecutorService timers) {
        this.topic = topic;
        this.membership = membership;
        this.partitions = partitions;
        this.loader = loader;
        this.executor = executor;
        this.timers = timers;
    }

    /** The coordinator of {@code key} if this broker runs it, loaded. */
    Lookup<C> coordinatorOf(final String key) {
        return coordinatorOfPartition(topic.partitionOf(key));
    }

    /** The coordinator of the topic's partition {@code partition} if this broker runs it, loaded. */
    Lookup<C> coordinatorOfPartition(final int partition) {
        if (partition < 0) {
            return Lookup.none(Errors.NOT_COORDINATOR);
        }
        final Elected<C> here = elected.get(partition);
        if (here == null) {
            return Lookup.none(Errors.NOT_COORDINATOR);
        }
        if (!here.coordinator().isDone()) {
            return Lookup.none(Errors.COORDINATOR_LOAD_IN_PROGRESS);
        }
        if (here.coordinator().isCompletedExceptionally()) {
            return Lookup.none(Errors.COORDINATOR_NOT_AVAILABLE);
        }
        return new Lookup<>(Errors.NONE, here.coordinator().join(), partition, here.leaderEpoch());
    }

    /** Every coordinator this broker runs, loaded. */
    List<C> all() {
        final List<C> running = new ArrayList<>();
        for (final Elected<C> here : elected.values()) {
            if (here.coordinator().isDone() && !here.coordinator().isCompletedExceptionally()) {
                running.add(here.coordinator().join());
            }
        }
        return running;
    }

    /**
     * Called on the partition-hosting thread after this broker's partitions took their roles in {@code image}: elects
     * a coordinator for each partition newly led here, and retires those of partitions no longer led here.
     */
    synchronized void onPartitionsApplied(final ClusterImage image) {
        if (closed || (lastImage != null && image.appliedIndex() < lastImage.appliedIndex())) {
            return;
        }
        lastImage = image;
        final Optional<TopicImage> led = topic.in(image);
        final int count = led.map(t -> t.partitions().size()).orElse(0);
        for (final Integer index : List.copyOf(elected.keySet())) {
            final PartitionState state = index < count ? led.get().partition(index) : null;
            final Elected<C> here = elected.get(index);
            // A coordinator that failed to load is elected anew (its partition's log may be readable now).
            if (state == null
                    || state.leader() != membership.nodeId()
                    || state.leaderEpoch() != here.leaderEpoch()
                    || here.coordinator().isCompletedExceptionally()) {
                retire(index, here);
            }
        }
        for (int index = 0; index < count; index++) {
            final PartitionState state = led.get().partition(index);
            if (state.leader() != membership.nodeId() || elected.containsKey(index)) {
                continue;
            }
            final TopicPartition tp = new TopicPartition(topic.name(), index);
            final Optional<Partition> local = partitions
                    .partition(tp)
                    .filter(p -> p.topicId().equals(led.get().id()))
                    .filter(p -> p.leaderEpoch() == state.leaderEpoch());
            if (local.isPresent()) {
                elect(index, local.get(), state.leaderEpoch());
            }
        }
    }

    private void elect(final int index, final Partition partition, final int leaderEpoch) {
        final CompletableFuture<Void> predecessor =
                retired.getOrDefault(index, CompletableFuture.completedFuture(null));
        final CompletableFuture<C> loading = predecessor
                .exceptionally(failure -> null)
                .thenApplyAsync(ignored -> loader.load(partition, leaderEpoch), executor);
        elected.put(index, new Elected<>(leaderEpoch, loading));
        loading.whenComplete((coordinator, failure) -> {
            if (failure != null) {
                LOG.error(
                        "broker {}: cannot load the coordinator of {} in epoch {}; tried again in {} ms",
                        membership.nodeId(),
                        partition.topicPartition(),
                        leaderEpoch,
                        RELOAD_DELAY_MS,
                        failure);
                scheduleElections();
            } else {
                LOG.info(
                        "broker {}: coordinating {} in epoch {}",
                        membership.nodeId(),
                        partition.topicPartition(),
                        leaderEpoch);
            }
        });
    }

    /** Runs the elections again shortly, with the last image, so that a coordinator that failed to load is retried. */
    private void scheduleElections() {
        try {
            timers.schedule(this::electAgain, RELOAD_DELAY_MS, TimeUnit.MILLISECONDS);
        } catch (final RejectedExecutionException closing) {
            // closed meanwhile: nothing more is elected
        }
    }

    private synchronized void electAgain() {
        if (lastImage != null) {
            onPartitionsApplied(lastImage);
        }
    }

    private void retire(final int index, final Elected<C> here) {
        elected.remove(index, here);
        // Closing may wait for a write in flight: not on this thread.
        retired.put(
                index,
                here.coordinator()
                        .thenComposeAsync(PartitionCoordinators::retireLogged, executor)
                        .exceptionally(failure -> null));
        LOG.info(
                "broker {}: no longer coordinates {}-{} (epoch {})",
                membership.nodeId(),
                topic.name(),
                index,
                here.leaderEpoch());
    }

    private static CompletableFuture<Void> retireLogged(final AutoCloseable coordinator) {
        if (coordinator instanceof Retirable retirable) {
            return retirable.retire().whenComplete((ignored, failure) -> {
                if (failure != null) {
                    LOG.warn("retiring coordinator {} failed", coordinator, failure);
                }
            });
        }
        closeLogged(coordinator);
        return CompletableFuture.completedFuture(null);
    }

    private static void closeLogged(final AutoCloseable coordinator) {
        try {
            coordinator.close();
        } catch (final Exception e) {
            LOG.warn("closing coordinator {} failed", coordinator, e);
        }
    }

    /** Stops electing and closes every coordinator once loaded; the executors are the owner's to shut down. */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        for (final Elected<C> here : elected.values()) {
            here.coordinator().thenAccept(PartitionCoordinators::closeLogged);
        }
        elected.clear();
    }
}
