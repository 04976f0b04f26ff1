package io.isthmus.broker.log;

/**
 * A transaction that an ABORT marker ended, as a {@code read_committed} fetch reports it (Kafka's {@code AbortedTxn}).
 *
 * @param producerId the transaction's producer
 * @param firstOffset offset of its first batch in the partition
 * @param lastOffset offset of its ABORT marker
 * @param lastStableOffset the partition's last stable offset right after the marker; no transaction aborted later
 *     began below it
 */
public record AbortedTransaction(long producerId, long firstOffset, long lastOffset, long lastStableOffset) {}
