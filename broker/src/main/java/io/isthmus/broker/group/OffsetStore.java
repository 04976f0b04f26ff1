package io.isthmus.broker.group;

import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/** Durable committed offsets of consumer groups. A commit returns only once it survives a broker crash. */
public interface OffsetStore extends AutoCloseable {
    /** Stores the offsets; later commits of the same group and partition win. */
    void commit(String groupId, Map<TopicPartition, CommittedOffset> offsets);

    /** The group's latest committed offsets, empty if it never committed. */
    Map<TopicPartition, CommittedOffset> committed(String groupId);

    /** Forgets every committed offset of a deleted topic. */
    void deleteTopic(String topic);

    @Override
    void close();
}
