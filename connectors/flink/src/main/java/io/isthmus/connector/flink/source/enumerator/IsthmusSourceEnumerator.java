package io.isthmus.connector.flink.source.enumerator;

import io.isthmus.client.admin.IsthmusAdmin;
import io.isthmus.connector.flink.source.enumerator.initializer.OffsetsInitializer;
import io.isthmus.connector.flink.source.enumerator.subscriber.IsthmusSubscriber;
import io.isthmus.connector.flink.source.split.IsthmusPartitionSplit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the subscribed partitions, makes a split of each with concrete start and stop offsets, and hands each split to
 * the reader that owns its partition, as Kafka's {@code KafkaSourceEnumerator} does.
 *
 * <ul>
 *   <li>Discovery and offset lookups go to the broker on the coordinator's worker thread ({@code callAsync}); their
 *       results are applied on the coordinator thread, the only thread that touches this object's state.
 *   <li>With {@code partition.discovery.interval.ms} above 0 discovery repeats and finds new partitions and new topics
 *       of a pattern; those start at the earliest offset (data written before they were found is not skipped).
 *   <li>Ownership is Kafka's formula, {@link #ownerOf}, so a partition lands on the same reader for a given
 *       parallelism, run after run.
 *   <li>Without periodic discovery, once the first discovery's splits are all assigned, every reader is told no more
 *       splits come: a bounded job can end.
 * </ul>
 */
public final class IsthmusSourceEnumerator implements SplitEnumerator<IsthmusPartitionSplit, IsthmusSourceEnumState> {
    private static final Logger LOG = LoggerFactory.getLogger(IsthmusSourceEnumerator.class);

    private final SplitEnumeratorContext<IsthmusPartitionSplit> context;
    private final IsthmusSubscriber subscriber;
    private final OffsetsInitializer startingOffsets;
    private final OffsetsInitializer stoppingOffsets;
    private final OffsetsInitializer newPartitionOffsets = OffsetsInitializer.earliest();
    private final Boundedness boundedness;
    private final long discoveryIntervalMs;
    private final Supplier<IsthmusAdmin> adminFactory;
    private final String groupId;

    /** Partitions whose split went to a reader (or is waiting for its reader, below). */
    private final Set<TopicPartition> assignedPartitions = new HashSet<>();
    /** Splits made but not yet handed out, by owning reader. */
    private final Map<Integer, List<IsthmusPartitionSplit>> pending = new HashMap<>();

    /** Readers told that no more splits come. */
    private final Set<Integer> signalledReaders = new HashSet<>();

    private boolean initialDiscoveryFinished;
    private IsthmusAdmin admin;

    public IsthmusSourceEnumerator(
            final SplitEnumeratorContext<IsthmusPartitionSplit> context,
            final IsthmusSubscriber subscriber,
            final OffsetsInitializer startingOffsets,
            final OffsetsInitializer stoppingOffsets,
            final Boundedness boundedness,
            final long discoveryIntervalMs,
            final String groupId,
            final Supplier<IsthmusAdmin> adminFactory,
            final IsthmusSourceEnumState restored) {
        this.context = context;
        this.subscriber = subscriber;
        this.startingOffsets = startingOffsets;
        this.stoppingOffsets = stoppingOffsets;
        this.boundedness = boundedness;
        this.discoveryIntervalMs = discoveryIntervalMs;
        this.groupId = groupId;
        this.adminFactory = adminFactory;
        if (restored != null) {
            assignedPartitions.addAll(restored.assignedPartitions());
            for (final IsthmusPartitionSplit split : restored.unassignedSplits()) {
                assignedPartitions.add(split.partition());
                pending.computeIfAbsent(
                                ownerOf(split.partition(), context.currentParallelism()), k -> new ArrayList<>())
                        .add(split);
            }
            initialDiscoveryFinished = restored.initialDiscoveryFinished();
        }
    }

    /** Kafka's split owner: partitions of one topic spread round-robin from a start that depends on the topic. */
    public static int ownerOf(final TopicPartition partition, final int readers) {
        final int start = ((partition.topic().hashCode() * 31) & 0x7FFFFFFF) % readers;
        return (start + partition.partition()) % readers;
    }

    @Override
    public void start() {
        if (discoveryIntervalMs > 0) {
            context.callAsync(this::discover, this::onDiscovered, 0, discoveryIntervalMs);
        } else {
            context.callAsync(this::discover, this::onDiscovered);
        }
    }

    /** A discovery round, on the worker thread: new partitions and their splits. */
    private List<IsthmusPartitionSplit> discover() {
        if (admin == null) {
            admin = adminFactory.get();
        }
        final Set<TopicPartition> known;
        final boolean initial;
        synchronized (this) {
            known = new HashSet<>(assignedPartitions);
            initial = !initialDiscoveryFinished;
        }
        final Set<TopicPartition> found = subscriber.subscribedPartitions(admin);
        final List<TopicPartition> fresh = new ArrayList<>();
        for (final TopicPartition partition : found) {
            if (!known.contains(partition)) {
                fresh.add(partition);
            }
        }
        if (fresh.isEmpty()) {
            return List.of();
        }
        final AdminOffsetsRetriever retriever = new AdminOffsetsRetriever(admin, groupId);
        final Map<TopicPartition, Long> starts =
                (initial ? startingOffsets : newPartitionOffsets).getPartitionOffsets(fresh, retriever);
        final Map<TopicPartition, Long> stops =
                stoppingOffsets == null ? Map.of() : stoppingOffsets.getPartitionOffsets(fresh, retriever);
        final List<IsthmusPartitionSplit> splits = new ArrayList<>();
        for (final TopicPartition partition : fresh) {
            final Long start = starts.get(partition);
            if (start == null) {
                throw new IllegalStateException("the starting offsets initializer gave no offset: partition="
                        + partition + ", initializer=" + startingOffsets);
            }
            final Long stop = stops.get(partition);
            splits.add(new IsthmusPartitionSplit(
                    partition, start, stop == null ? IsthmusPartitionSplit.NO_STOPPING_OFFSET : stop));
        }
        return splits;
    }

    /** On the coordinator thread: remember the new splits and hand them out. */
    private void onDiscovered(final List<IsthmusPartitionSplit> splits, final Throwable failure) {
        if (failure != null) {
            throw new IllegalStateException("partition discovery failed: subscriber=" + subscriber, failure);
        }
        synchronized (this) {
            for (final IsthmusPartitionSplit split : splits) {
                if (assignedPartitions.add(split.partition())) {
                    pending.computeIfAbsent(
                                    ownerOf(split.partition(), context.currentParallelism()), k -> new ArrayList<>())
                            .add(split);
                }
            }
            initialDiscoveryFinished = true;
        }
        if (!splits.isEmpty()) {
            LOG.info("discovered {} new partition(s): {}", splits.size(), splits);
        }
        assignPending();
    }

    private void assignPending() {
        final Map<Integer, List<IsthmusPartitionSplit>> assignment = new HashMap<>();
        for (final Integer reader : context.registeredReaders().keySet()) {
            final List<IsthmusPartitionSplit> splits = pending.remove(reader);
            if (splits != null && !splits.isEmpty()) {
                assignment.put(reader, splits);
            }
        }
        if (!assignment.isEmpty()) {
            context.assignSplits(new SplitsAssignment<>(assignment));
        }
        maybeSignalNoMoreSplits();
    }

    /** Only once discovery is over for good (no periodic discovery) and nothing waits for a reader. */
    private void maybeSignalNoMoreSplits() {
        if (discoveryIntervalMs > 0 || !initialDiscoveryFinished) {
            return;
        }
        if (boundedness != Boundedness.BOUNDED) {
            // Unbounded, even with stopping offsets (setUnbounded): readers stay open, as Kafka's do.
            return;
        }
        for (final Integer reader : context.registeredReaders().keySet()) {
            if (!pending.containsKey(reader) && signalledReaders.add(reader)) {
                context.signalNoMoreSplits(reader);
            }
        }
    }

    @Override
    public void handleSplitRequest(final int subtaskId, final String requesterHostname) {
        // Splits are pushed to their owners; a reader never needs to ask.
    }

    @Override
    public void addSplitsBack(final List<IsthmusPartitionSplit> splits, final int subtaskId) {
        for (final IsthmusPartitionSplit split : splits) {
            pending.computeIfAbsent(ownerOf(split.partition(), context.currentParallelism()), k -> new ArrayList<>())
                    .add(split);
        }
        if (context.registeredReaders().containsKey(subtaskId)) {
            assignPending();
        }
    }

    @Override
    public void addReader(final int subtaskId) {
        // A reader that registers again was restarted: it must hear "no more splits" again.
        signalledReaders.remove(subtaskId);
        assignPending();
    }

    @Override
    public synchronized IsthmusSourceEnumState snapshotState(final long checkpointId) {
        final Set<IsthmusPartitionSplit> unassigned = new HashSet<>();
        for (final List<IsthmusPartitionSplit> splits : pending.values()) {
            unassigned.addAll(splits);
        }
        final Set<TopicPartition> handedOut = new HashSet<>(assignedPartitions);
        for (final IsthmusPartitionSplit split : unassigned) {
            handedOut.remove(split.partition());
        }
        return new IsthmusSourceEnumState(handedOut, unassigned, initialDiscoveryFinished);
    }

    @Override
    public void close() {
        if (admin != null) {
            admin.close();
        }
    }
}
