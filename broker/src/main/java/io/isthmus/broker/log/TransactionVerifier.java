package io.isthmus.broker.log;

/**
 * Says whether a producer may start writing transactional data to a partition, asked by the log before the first
 * transactional batch of a producer that has no transaction open there (Kafka's KIP-890 verification). Only data of a
 * transaction its coordinator knows, with this partition in it, may enter: anything else would never get a marker and
 * would hold the last stable offset back for good.
 *
 * <p>Called under the partition's append lock, so implementations must not block or take locks that are held while
 * appending.
 */
@FunctionalInterface
public interface TransactionVerifier {
    /** Accepts every transactional batch: for logs used without a transaction coordinator. */
    TransactionVerifier ACCEPT_ALL = (producerId, producerEpoch, partition) -> true;

    /**
     * @param partition the partition's name, {@code topic-partition}
     * @return whether the producer, at this epoch, has a transaction open that includes the partition
     */
    boolean isPartitionInTransaction(long producerId, short producerEpoch, String partition);
}
