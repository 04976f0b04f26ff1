package io.isthmus.client.consumer;

import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/** Told the outcome of {@link IsthmusConsumer#commitAsync(OffsetCommitCallback)}. */
@FunctionalInterface
public interface OffsetCommitCallback {
    /** {@code exception} is null on success. */
    void onComplete(Map<TopicPartition, Long> offsets, Exception exception);
}
