package io.isthmus.connector.flink.source.enumerator;

import io.isthmus.client.admin.IsthmusAdmin;
import io.isthmus.client.cluster.OffsetAndTime;
import io.isthmus.client.cluster.OffsetLookup;
import io.isthmus.connector.flink.source.enumerator.initializer.OffsetsInitializer.PartitionOffsetsRetriever;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/** Answers offsets initializers through the enumerator's admin client (on the enumerator's worker thread). */
final class AdminOffsetsRetriever implements PartitionOffsetsRetriever {
    private final IsthmusAdmin admin;
    private final String groupId;

    AdminOffsetsRetriever(final IsthmusAdmin admin, final String groupId) {
        this.admin = admin;
        this.groupId = groupId;
    }

    @Override
    public Map<TopicPartition, Long> committedOffsets(final Collection<TopicPartition> partitions) {
        if (groupId == null) {
            throw new IllegalStateException("committed offsets need the source's group.id (setGroupId)");
        }
        return admin.listConsumerGroupOffsets(groupId, partitions);
    }

    @Override
    public Map<TopicPartition, Long> endOffsets(final Collection<TopicPartition> partitions) {
        return lookup(partitions, OffsetLookup.LATEST);
    }

    @Override
    public Map<TopicPartition, Long> beginningOffsets(final Collection<TopicPartition> partitions) {
        return lookup(partitions, OffsetLookup.EARLIEST);
    }

    @Override
    public Map<TopicPartition, Long> offsetsForTimes(final Map<TopicPartition, Long> timestamps) {
        final Map<TopicPartition, Long> result = new HashMap<>();
        admin.listOffsets(timestamps).forEach((partition, found) -> {
            if (found != null && found.offset() >= 0) {
                result.put(partition, found.offset());
            }
        });
        return result;
    }

    private Map<TopicPartition, Long> lookup(final Collection<TopicPartition> partitions, final long what) {
        final Map<TopicPartition, Long> query = new HashMap<>();
        for (final TopicPartition partition : partitions) {
            query.put(partition, what);
        }
        final Map<TopicPartition, Long> result = new HashMap<>();
        final Map<TopicPartition, OffsetAndTime> found = admin.listOffsets(query);
        for (final TopicPartition partition : partitions) {
            final OffsetAndTime offset = found.get(partition);
            if (offset == null || offset.offset() < 0) {
                throw new IllegalStateException("no offset for " + (what == OffsetLookup.LATEST ? "latest" : "earliest")
                        + ": partition=" + partition);
            }
            result.put(partition, offset.offset());
        }
        return result;
    }
}
