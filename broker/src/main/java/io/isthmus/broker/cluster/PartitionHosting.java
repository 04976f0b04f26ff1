package io.isthmus.broker.cluster;

import io.isthmus.broker.group.OffsetStore;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.partition.PartitionManager.HostedTopic;
import io.isthmus.broker.topic.TopicRegistry.TopicInfo;
import io.isthmus.metadata.image.ClusterImage;
import io.isthmus.metadata.image.TopicImage;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the partitions this broker holds in line with the cluster's metadata: each new image the quorum applies is
 * handed here, and the newest one is applied to the {@link PartitionManager} on a thread of its own, never on the
 * quorum's (creating and deleting logs takes disk time the quorum must not wait for). Images that arrive while one is
 * being applied are folded into the newest.
 *
 * <p>{@link #appliedIndex} is how far this broker's partitions have come; the broker reports it in its heartbeats, so
 * the quorum unfences it only once it holds the partitions it registered to lead. An image that cannot be applied (a
 * disk refusing a new log) is retried until one can.
 */
final class PartitionHosting implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionHosting.class);
    private static final long RETRY_MILLIS = 1000;

    private final int nodeId;
    private final PartitionManager partitions;
    private final OffsetStore offsets;
    private final AtomicReference<ClusterImage> pending = new AtomicReference<>();
    private final ScheduledExecutorService applier;
    private volatile long appliedIndex;

    PartitionHosting(final int nodeId, final PartitionManager partitions, final OffsetStore offsets) {
        this.nodeId = nodeId;
        this.partitions = partitions;
        this.offsets = offsets;
        this.applier = Executors.newSingleThreadScheduledExecutor(r -> {
            final Thread t = new Thread(r, "broker-" + nodeId + "-partition-hosting");
            t.setDaemon(true);
            return t;
        });
    }

    /** Called by the quorum with every image it applies; returns at once. */
    void offer(final ClusterImage image) {
        if (pending.getAndSet(image) == null) {
            applier.execute(this::applyNewest);
        }
    }

    /** The quorum log index of the last image whose partitions this broker holds. */
    long appliedIndex() {
        return appliedIndex;
    }

    private void applyNewest() {
        final ClusterImage image = pending.get();
        if (image == null) {
            return;
        }
        try {
            final Set<String> removed = partitions.host(hostedTopics(image));
            for (final String topic : removed) {
                offsets.deleteTopic(topic);
            }
            appliedIndex = image.appliedIndex();
        } catch (final RuntimeException e) {
            LOG.error(
                    "broker {}: cannot hold the partitions of metadata at index {}; retrying in {} ms",
                    nodeId,
                    image.appliedIndex(),
                    RETRY_MILLIS,
                    e);
            applier.schedule(this::applyNewest, RETRY_MILLIS, TimeUnit.MILLISECONDS);
            return;
        }
        // A newer image that arrived meanwhile found this one pending and scheduled nothing: apply it now.
        if (!pending.compareAndSet(image, null)) {
            applier.execute(this::applyNewest);
        }
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

    @Override
    public void close() throws InterruptedException {
        applier.shutdownNow();
        applier.awaitTermination(5, TimeUnit.SECONDS);
    }
}
