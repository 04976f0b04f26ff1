package io.isthmus.broker.cluster;

import io.isthmus.broker.group.OffsetStore;
import io.isthmus.broker.partition.IsrChanges;
import io.isthmus.broker.partition.Partition;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.partition.PartitionManager.HostedTopic;
import io.isthmus.broker.replication.ReplicaFetchers;
import io.isthmus.broker.replication.ReplicaPushers;
import io.isthmus.broker.topic.TopicRegistry.TopicInfo;
import io.isthmus.metadata.image.ClusterImage;
import io.isthmus.metadata.image.PartitionState;
import io.isthmus.metadata.image.TopicImage;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the partitions this broker holds in line with the cluster's metadata: each new image the quorum applies is
 * handed here, and the newest one is applied to the {@link PartitionManager} on a thread of its own, never on the
 * quorum's (creating and deleting logs takes disk time the quorum must not wait for). Images that arrive while one is
 * being applied are folded into the newest; an image older than one applied already is dropped.
 *
 * <p><b>Nothing is applied before the voter has caught up</b> to this broker's own registration, a log entry committed
 * after this process started: before that, the voter's image is whatever its snapshot and the part of its log replayed
 * so far hold, and applying it would delete every partition created after it. Until then the broker holds the
 * partitions it had on disk, serves none of them (it is fenced until its heartbeats report the catch-up) and deletes
 * nothing.
 *
 * <p><b>Roles.</b> With the partitions, each takes the role the image gives this broker: the leader of a partition of
 * one replica, the leader of a replicated one (tracking its followers and asking the quorum for ISR changes), or a
 * follower, fetched by a {@link ReplicaFetchers replica fetcher} from its leader. A replicated leader also pushes its
 * batches to its followers over RDMA where push replication is on ({@link ReplicaPushers}). The same thread asks every replicated
 * leader, every half {@code replica.lag.time.max.ms}, whether followers have fallen out of sync.
 *
 * <p>{@link #appliedIndex} is how far this broker's partitions have come; the broker reports it in its heartbeats, so
 * the quorum unfences it only once it holds the partitions it registered to lead. An image that cannot be applied (a
 * disk refusing a new log) is retried until one can.
 */
final class PartitionHosting implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionHosting.class);
    private static final long RETRY_MILLIS = 1000;
    private static final long CATCH_UP_POLL_MILLIS = 50;

    private final int nodeId;
    private final PartitionManager partitions;
    private final OffsetStore offsets;
    /** The log index an image must have reached to be applied: this broker's registration, -1 while unknown. */
    private final LongSupplier catchUpIndex;

    private final ReplicaFetchers fetchers;
    private final ReplicaPushers pushers;
    private final IsrChanges isrChanges;
    private final long replicaLagTimeMaxMs;
    private final AtomicReference<ClusterImage> pending = new AtomicReference<>();
    private final ScheduledExecutorService applier;
    private final List<Consumer<ClusterImage>> afterEachImage = new CopyOnWriteArrayList<>();
    private volatile ClusterImage applied;
    private volatile long appliedIndex;
    private volatile boolean closed;

    PartitionHosting(
            final int nodeId,
            final PartitionManager partitions,
            final OffsetStore offsets,
            final LongSupplier catchUpIndex,
            final ReplicaFetchers fetchers,
            final ReplicaPushers pushers,
            final IsrChanges isrChanges,
            final long replicaLagTimeMaxMs) {
        this.nodeId = nodeId;
        this.partitions = partitions;
        this.offsets = offsets;
        this.catchUpIndex = catchUpIndex;
        this.fetchers = fetchers;
        this.pushers = pushers;
        this.isrChanges = isrChanges;
        this.replicaLagTimeMaxMs = replicaLagTimeMaxMs;
        this.applier = Executors.newSingleThreadScheduledExecutor(r -> {
            final Thread t = new Thread(r, "broker-" + nodeId + "-partition-hosting");
            t.setDaemon(true);
            return t;
        });
        final long every = Math.max(1, replicaLagTimeMaxMs / 2);
        applier.scheduleWithFixedDelay(this::shrinkLaggingIsrs, every, every, TimeUnit.MILLISECONDS);
    }

    /** Asks each replicated leader here to drop followers that have not caught up for too long. */
    private void shrinkLaggingIsrs() {
        final long now = System.currentTimeMillis();
        for (final Partition partition : partitions.partitions()) {
            try {
                partition.maybeShrinkIsr(now, replicaLagTimeMaxMs);
            } catch (final RuntimeException e) {
                LOG.warn("broker {}: isr check of {} failed", nodeId, partition.topicPartition(), e);
            }
        }
    }

    /** Called by the quorum with every image it applies; returns at once. */
    void offer(final ClusterImage image) {
        if (closed) {
            return;
        }
        // Keep the newest: a listener registering while the voter publishes may hand over an older image last.
        final ClusterImage before = pending.getAndUpdate(
                current -> current == null || image.appliedIndex() >= current.appliedIndex() ? image : current);
        if (before == null) {
            schedule(0);
        }
    }

    /**
     * Runs {@code listener} on this class's thread after each image the partitions took their roles in (and at once
     * there, with the last such image, if there was one), so that what depends on leadership (a transaction
     * coordinator) follows it.
     */
    void afterEachImage(final Consumer<ClusterImage> listener) {
        afterEachImage.add(listener);
        try {
            applier.execute(() -> {
                final ClusterImage last = applied;
                if (last != null && !closed) {
                    listener.accept(last);
                }
            });
        } catch (final RejectedExecutionException shuttingDown) {
            // closed meanwhile: nothing more is applied
        }
    }

    /** The quorum log index of the last image whose partitions this broker holds. */
    long appliedIndex() {
        return appliedIndex;
    }

    private void schedule(final long delayMillis) {
        try {
            applier.schedule(this::applyNewest, delayMillis, TimeUnit.MILLISECONDS);
        } catch (final RejectedExecutionException shuttingDown) {
            // closed meanwhile: nothing more is applied
        }
    }

    private void applyNewest() {
        final ClusterImage image = pending.get();
        if (image == null || closed) {
            return;
        }
        // An image no newer than one applied already (a listener registering while the voter publishes can hand one
        // over late) is dropped.
        final boolean stale = appliedIndex > 0 && image.appliedIndex() <= appliedIndex;
        if (!stale) {
            final long catchUp = catchUpIndex.getAsLong();
            if (catchUp < 0 || image.appliedIndex() < catchUp) {
                // Not caught up: look again shortly (the next image may be a while: heartbeats log nothing).
                schedule(CATCH_UP_POLL_MILLIS);
                return;
            }
            try {
                apply(image);
            } catch (final Throwable e) {
                LOG.error(
                        "broker {}: cannot hold the partitions of metadata at index {}; retrying in {} ms",
                        nodeId,
                        image.appliedIndex(),
                        RETRY_MILLIS,
                        e);
                schedule(RETRY_MILLIS);
                return;
            }
        }
        // A newer image that arrived meanwhile found this one pending and scheduled nothing: apply it now.
        if (!pending.compareAndSet(image, null)) {
            schedule(0);
        }
    }

    private void apply(final ClusterImage image) {
        final List<HostedTopic> cluster = hostedTopics(image);
        // Offsets of removed topics go first, so that a topic created again under the name never inherits them; done
        // again (harmlessly) if the hosting below fails and is retried.
        for (final String topic : partitions.topicsRemovedBy(cluster)) {
            offsets.deleteTopic(topic);
        }
        try {
            partitions.host(cluster);
        } finally {
            // Partitions held already take their roles even when a new one cannot be had (a full disk): a failover
            // must not wait for an unrelated topic's log. What follows leadership follows them.
            takeRoles(image);
            applied = image;
            for (final Consumer<ClusterImage> listener : afterEachImage) {
                try {
                    listener.accept(image);
                } catch (final RuntimeException e) {
                    LOG.error("broker {}: a listener failed on metadata at index {}", nodeId, image.appliedIndex(), e);
                }
            }
        }
        appliedIndex = image.appliedIndex();
    }

    /**
     * Each partition this broker holds takes its role in {@code image}. A leader takes the image's leader epoch: its
     * appends are stamped with it from now on, and the epoch begins at its log end offset ({@link ImageLeadership}
     * serves a partition only once its epoch is the image's, so no batch of a new leadership carries an older epoch).
     * A follower fetches from its leader; a partition without a leader is only held.
     */
    private void takeRoles(final ClusterImage image) {
        final long now = System.currentTimeMillis();
        final Set<TopicPartition> followed = new HashSet<>();
        final Set<TopicPartition> ledWithFollowers = new HashSet<>();
        for (final TopicImage topic : image.topics().values()) {
            for (int p = 0; p < topic.partitions().size(); p++) {
                final PartitionState state = topic.partition(p);
                final TopicPartition tp = new TopicPartition(topic.name(), p);
                final Optional<Partition> held =
                        partitions.partition(tp).filter(local -> local.topicId().equals(topic.id()));
                if (held.isEmpty() || !state.replicas().contains(nodeId)) {
                    continue;
                }
                try {
                    switch (takeRole(held.get(), tp, state, now)) {
                        case FOLLOWER -> followed.add(tp);
                        case REPLICATED_LEADER -> ledWithFollowers.add(tp);
                        case OTHER -> {}
                    }
                } catch (final RuntimeException e) {
                    LOG.error("broker {}: {} cannot take its role in epoch {}", nodeId, tp, state.leaderEpoch(), e);
                }
            }
        }
        fetchers.retainOnly(followed);
        pushers.retainOnly(ledWithFollowers);
    }

    /** The role a held partition took: fetched from its leader, led with followers (pushed to), or neither. */
    private enum Role {
        FOLLOWER,
        REPLICATED_LEADER,
        OTHER
    }

    /** Gives {@code local} its role in {@code state} and returns it. */
    private Role takeRole(final Partition local, final TopicPartition tp, final PartitionState state, final long now) {
        if (state.leader() == nodeId) {
            fetchers.unfollow(tp);
            if (state.replicas().size() > 1) {
                local.becomeReplicatedLeader(
                        nodeId,
                        state.leaderEpoch(),
                        state.partitionEpoch(),
                        state.replicas(),
                        state.isr(),
                        isrChanges,
                        now);
                pushers.lead(local, state.leaderEpoch(), state.replicas());
                return Role.REPLICATED_LEADER;
            }
            pushers.unlead(tp);
            local.becomeLeader(state.leaderEpoch());
            return Role.OTHER;
        }
        pushers.unlead(tp);
        local.becomeFollower(state.leaderEpoch());
        if (!state.hasLeader()) {
            fetchers.unfollow(tp);
            return Role.OTHER;
        }
        fetchers.follow(local, state.leader(), state.leaderEpoch());
        return Role.FOLLOWER;
    }

    private List<HostedTopic> hostedTopics(final ClusterImage image) {
        final List<HostedTopic> hosted = new ArrayList<>();
        for (final TopicImage topic : image.topics().values()) {
            final Set<Integer> mine = new HashSet<>();
            for (int p = 0; p < topic.partitions().size(); p++) {
                if (topic.partition(p).replicas().contains(nodeId)) {
                    mine.add(p);
                }
            }
            hosted.add(new HostedTopic(
                    new TopicInfo(topic.name(), topic.id(), topic.partitions().size()), mine));
        }
        return hosted;
    }

    /** Stops applying; an image being applied is finished first, so the logs are never closed under it. */
    @Override
    public void close() throws InterruptedException {
        closed = true;
        fetchers.close();
        pushers.close();
        applier.shutdown();
        if (!applier.awaitTermination(30, TimeUnit.SECONDS)) {
            LOG.warn("broker {}: partition hosting still busy after 30 s; closing anyway", nodeId);
            applier.shutdownNow();
        }
    }
}
