package io.isthmus.broker.group;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;

/** Durable committed offsets of consumer groups. A commit returns only once it survives a broker crash. */
public interface OffsetStore extends AutoCloseable {
    /**
     * Stores the offsets; later commits of the same group and partition win.
     *
     * @throws org.apache.kafka.common.errors.ApiException Kafka's error for the commit (a cluster's store: this broker
     *     does not coordinate the group, too few replicas hold the offsets) or another exception; nothing was stored
     */
    void commit(String groupId, Map<TopicPartition, CommittedOffset> offsets);

    /**
     * {@link #commit}, completing once the offsets are durable: a store that waits for other brokers does not hold up
     * the caller's thread meanwhile. By default the commit runs on the caller's thread.
     */
    default CompletableFuture<Void> commitAsync(
            final String groupId, final Map<TopicPartition, CommittedOffset> offsets) {
        try {
            commit(groupId, offsets);
            return CompletableFuture.completedFuture(null);
        } catch (final RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * The group's latest committed offsets, empty if it never committed.
     *
     * @throws org.apache.kafka.common.errors.ApiException where a cluster's store does not hold the group's offsets
     *     (NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS)
     */
    Map<TopicPartition, CommittedOffset> committed(String groupId);

    /** Ids of the groups with committed offsets here (in a cluster: in the partitions this broker leads). */
    Set<String> groupIds();

    /** Forgets every committed offset of a deleted topic. */
    void deleteTopic(String topic);

    @Override
    void close();
}
