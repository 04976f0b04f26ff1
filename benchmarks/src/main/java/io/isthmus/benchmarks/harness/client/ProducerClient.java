package io.isthmus.benchmarks.harness.client;

/**
 * What a workload needs from a producer, so that a workload runs unchanged over kafka-clients and the isthmus producer
 * ({@link ClientLibrary} picks one).
 */
public interface ProducerClient extends AutoCloseable {
    /**
     * Sends one record with no key to any partition, without a completion of its own: each library's cheapest way to
     * learn about delivery (the isthmus producer's per-batch {@code DeliveryListener}, which allocates nothing per
     * record; one shared {@code Callback} for kafka-clients). Failures are counted in {@link #failedRecords()}.
     */
    void send(byte[] value);

    /** Sends one record and waits for its acknowledgement; throws if the broker rejected it. */
    void sendAndWait(byte[] value) throws Exception;

    /** Waits until every record sent so far is acknowledged or failed. */
    void flush();

    /**
     * Opens a transaction: every record sent until {@link #commitTransaction()} belongs to it. Only for a producer made
     * with {@link ClientSettings#transactional()} settings, which gets its producer id and epoch (Kafka's {@code
     * initTransactions}) when it is made.
     */
    void beginTransaction();

    /**
     * Commits the open transaction: returns once every record sent in it is acknowledged and the transaction is
     * committed (its commit markers written); throws when the transaction failed.
     */
    void commitTransaction();

    /** Records sent with {@link #send(byte[])} that failed so far. */
    long failedRecords();

    /** The first failure of a record sent with {@link #send(byte[])}, or null. */
    Exception firstFailure();

    @Override
    void close();

    /** Throws when any record sent with {@link #send(byte[])} failed; call after {@link #flush()}. */
    default void checkDelivered() {
        if (failedRecords() > 0) {
            throw new IllegalStateException(
                    "produce failed: failedRecords=" + failedRecords() + " first=" + firstFailure(), firstFailure());
        }
    }
}
