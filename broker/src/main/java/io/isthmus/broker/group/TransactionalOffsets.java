package io.isthmus.broker.group;

import java.util.Map;
import java.util.Set;
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
     * The partitions of {@code groupId} for which a transaction not ended yet holds offsets, now: an OffsetFetch that
     * requires stable offsets is answered UNSTABLE_OFFSET_COMMIT for them (KIP-447). Asked before the committed offsets
     * are read, since a transaction's offsets become the group's before they stop being pending: an offset a
     * transaction replaces meanwhile is then answered unstable, never stable.
     */
    Set<TopicPartition> pending(String groupId);
}
