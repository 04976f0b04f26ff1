package io.isthmus.broker.api;

import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * What a partition leader asks before a transactional producer's batches enter a partition (KIP-890's verification):
 * a single broker's logs ask its own coordinator under their append lock and need nothing here; a cluster's leader
 * asks the transaction's coordinator, on another broker, before it appends.
 */
public interface ProduceVerification {
    /** Nothing to ask before the append. */
    ProduceVerification NONE = new ProduceVerification() {
        @Override
        public CompletableFuture<Errors> verify(
                final String transactionalId, final MemoryRecords records, final TopicPartition partition) {
            return CompletableFuture.completedFuture(Errors.NONE);
        }

        @Override
        public void markerWritten(final long producerId, final TopicPartition partition) {}
    };

    /**
     * Completes with NONE once the batches of {@code transactionalId}'s producer may enter {@code partition} (its
     * coordinator has the partition in the producer's open transaction at that epoch), or with the error to answer
     * the produce with.
     */
    CompletableFuture<Errors> verify(String transactionalId, MemoryRecords records, TopicPartition partition);

    /** A marker ended the producer's transaction in {@code partition}: its next one is verified again. */
    void markerWritten(long producerId, TopicPartition partition);
}
