package io.isthmus.client.consumer;

import io.isthmus.client.rdma.RdmaPartitionReader;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * What the consumer knows about one assigned partition. {@link #position} is the next offset the application gets;
 * {@link #fetchPosition} is the next offset to fetch, ahead of it while fetched data is buffered (fetch pipelining).
 * A seek moves both and bumps {@link #generation}, which invalidates data fetched before it.
 */
final class PartitionState {
    final TopicPartition topicPartition;
    final String topic;
    final int partition;
    Uuid topicId = Uuid.ZERO_UUID;
    int leader = -1;
    /** -1: unknown (needs the committed offset or a reset). */
    long position = -1;

    long fetchPosition = -1;
    int generation;
    boolean paused;
    long highWatermark = -1;
    long logStartOffset = -1;
    /** The RDMA read state, with transport rdma (created on first poll). */
    RdmaPartitionReader rdma;

    PartitionState(final TopicPartition topicPartition) {
        this.topicPartition = topicPartition;
        this.topic = topicPartition.topic();
        this.partition = topicPartition.partition();
    }

    void seek(final long offset) {
        position = offset;
        fetchPosition = offset;
        generation++;
    }

    boolean hasPosition() {
        return position >= 0;
    }

    boolean fetchable() {
        return !paused && position >= 0 && leader >= 0;
    }

    @Override
    public String toString() {
        return topicPartition + "{position=" + position + ", fetchPosition=" + fetchPosition + ", leader=" + leader
                + ", paused=" + paused + '}';
    }
}
