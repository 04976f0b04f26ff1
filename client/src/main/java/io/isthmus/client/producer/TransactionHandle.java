package io.isthmus.client.producer;

import java.util.Objects;

/**
 * What identifies an open transaction to its coordinator: the transactional id and the producer id and epoch that
 * wrote it. An exactly-once sink takes it from {@link IsthmusProducer#transactionHandle()} after flushing a transaction
 * it prepared, stores it in its checkpoint, and after a restart finishes the transaction with a new producer of the
 * same {@code transactional.id}: {@link IsthmusProducer#resumeTransaction(TransactionHandle)}, then {@code
 * commitTransaction()} (or {@code abortTransaction()}). This is what Flink's {@code
 * FlinkKafkaInternalProducer.resumeTransaction} does with kafka-clients' internals.
 *
 * <p>The handle stays valid while the coordinator keeps the transaction open: until {@code transaction.timeout.ms}
 * after it began, or until a producer with the same transactional id calls {@code initTransactions()}, which aborts it.
 */
public record TransactionHandle(String transactionalId, long producerId, short producerEpoch) {
    public TransactionHandle {
        Objects.requireNonNull(transactionalId, "transactionalId");
        if (producerId < 0 || producerEpoch < 0) {
            throw new IllegalArgumentException("a transaction handle needs a producer id and epoch: producerId="
                    + producerId + ", producerEpoch=" + producerEpoch);
        }
    }
}
