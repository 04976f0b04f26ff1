package io.isthmus.client.consumer.internals;

import io.isthmus.client.cluster.BrokerConnections;
import io.isthmus.client.cluster.OffsetAndTime;
import io.isthmus.client.cluster.OffsetLookup;
import io.isthmus.client.consumer.ConsumerConfig;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.NoOffsetForPartitionException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnstableOffsetCommitException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the positions only the brokers know: for a partition without one, the group's committed offset, else where
 * {@code auto.offset.reset} says (earliest, latest, or fail); and the offsets {@code seekToBeginning}/{@code
 * seekToEnd} go to. It asks; {@link SubscriptionState} moves the positions. While a transaction's offsets for the
 * group are pending, the partitions stay without a position (and unfetched) until it ends.
 */
public final class PositionResolver {
    private static final Logger LOG = LoggerFactory.getLogger(PositionResolver.class);

    /**
     * The group's committed offsets of some partitions (absent: none committed); throws {@link
     * UnstableOffsetCommitException} while a transaction's offsets for them are pending.
     */
    @FunctionalInterface
    public interface CommittedOffsets {
        Map<TopicPartition, Long> fetch(Set<TopicPartition> partitions);
    }

    private final SubscriptionState subscriptions;
    private final ConsumerMetadata metadata;
    private final BrokerConnections connections;
    private final ConsumerConfig config;
    private final CommittedOffsets committed;

    /** @param committed the group's committed offsets, or null without a group */
    public PositionResolver(
            final SubscriptionState subscriptions,
            final ConsumerMetadata metadata,
            final BrokerConnections connections,
            final ConsumerConfig config,
            final CommittedOffsets committed) {
        this.subscriptions = subscriptions;
        this.metadata = metadata;
        this.connections = connections;
        this.config = config;
        this.committed = committed;
    }

    /** Gives every assigned partition without a position one. Allocates nothing when all have one. */
    public void resolveMissing() {
        List<TopicPartition> missing = subscriptions.partitionsWithoutPosition();
        if (missing == null) {
            return;
        }
        metadata.updateIfRequested(subscriptions);
        if (committed != null) {
            final Map<TopicPartition, Long> offsets;
            try {
                offsets = committed.fetch(new HashSet<>(missing));
            } catch (final UnstableOffsetCommitException e) {
                // A transaction's offsets for these partitions are pending: the offset committed before them is not
                // where to start, nor is auto.offset.reset. Asked again next poll, as Kafka's consumer does.
                LOG.debug("committed offsets pending in a transaction, positions wait: {}", e.getMessage());
                return;
            }
            final List<TopicPartition> still = new ArrayList<>();
            for (final TopicPartition tp : missing) {
                final Long offset = offsets.get(tp);
                if (offset != null && offset >= 0) {
                    subscriptions.seek(tp, offset);
                } else {
                    still.add(tp);
                }
            }
            missing = still;
        }
        if (missing.isEmpty()) {
            return;
        }
        switch (config.autoOffsetReset()) {
            case EARLIEST -> seekTo(missing, OffsetLookup.EARLIEST);
            case LATEST -> seekTo(missing, OffsetLookup.LATEST);
            case NONE -> throw new NoOffsetForPartitionException(missing);
        }
    }

    /**
     * Seeks the partitions (all assigned ones if empty) to the earliest or latest offset.
     *
     * @param which {@link OffsetLookup#EARLIEST} or {@link OffsetLookup#LATEST}
     */
    public void seekTo(final Collection<TopicPartition> partitions, final long which) {
        final Collection<TopicPartition> targets =
                partitions.isEmpty() ? subscriptions.assignedPartitions() : partitions;
        final Map<TopicPartition, Long> query = new HashMap<>();
        for (final TopicPartition tp : targets) {
            subscriptions.partition(tp);
            query.put(tp, which);
        }
        final Map<TopicPartition, OffsetAndTime> found =
                OffsetLookup.lookup(connections, query, config.isolationLevel());
        for (final TopicPartition tp : targets) {
            final OffsetAndTime offset = found.get(tp);
            subscriptions.seek(tp, offset == null ? 0 : offset.offset());
        }
    }
}
