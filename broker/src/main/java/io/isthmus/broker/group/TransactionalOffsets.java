package io.isthmus.broker.group;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * Where the offsets a producer commits for a group inside its transaction (TxnOffsetCommit, after AddOffsetsToTxn) wait
 * for the transaction to end: applied to the group if it commits, dropped if it aborts. A single broker's transaction
 * coordinator holds them in its state log; a cluster's group coordinator holds them in the group's {@code
 * __consumer_offsets} partition until the transaction's marker reaches it, as Kafka does.
 */
public interface TransactionalOffsets {
    /**
     * Adds {@code offsets} of {@code groupId} to the producer's open transaction; the committing member was checked
     * already.
     *
     * @return NONE once the offsets are durably part of the transaction, else Kafka's error for TxnOffsetCommit
     */
    CompletableFuture<Errors> stage(
            String transactionalId,
            long producerId,
            short producerEpoch,
            String groupId,
            Map<TopicPartition, CommittedOffset> offsets);

    /**
     * Whether a transaction not ended yet holds offsets of {@code groupId} for {@code partition}: an OffsetFetch that
     * requires stable offsets is answered UNSTABLE_OFFSET_COMMIT for it (KIP-447).
     */
    boolean hasPending(String groupId, TopicPartition partition);
}
