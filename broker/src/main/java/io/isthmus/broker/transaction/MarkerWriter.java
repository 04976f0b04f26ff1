package io.isthmus.broker.transaction;

/**
 * Writes the COMMIT or ABORT marker ending a transaction into every partition of it: appends on a single broker
 * ({@link TransactionMarkerWriter}), WriteTxnMarkers requests to each partition's leader in a cluster.
 */
public interface MarkerWriter extends AutoCloseable {
    /**
     * Writes the marker ending {@code metadata}'s transaction, at its current epoch, stamped with {@code
     * coordinatorEpoch}, into every partition of it, and returns once each holds it durably. A partition deleted
     * meanwhile needs none. Anything else throws, and the coordinator keeps the transaction in its prepare state and
     * finishes it later (writing a marker twice changes nothing).
     */
    void write(TransactionMetadata metadata, boolean commit, int coordinatorEpoch);

    @Override
    void close();
}
