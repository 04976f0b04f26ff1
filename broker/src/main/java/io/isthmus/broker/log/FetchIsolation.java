package io.isthmus.broker.log;

/** How far a read may go (Kafka's {@code FetchIsolation}). */
public enum FetchIsolation {
    /** Every committed batch, up to the log end offset: a follower replicating, or the log reading itself. */
    LOG_END,
    /** Up to the high watermark, what every in-sync replica holds: a {@code read_uncommitted} consumer. */
    HIGH_WATERMARK,
    /** Up to the last stable offset, below every open transaction: a {@code read_committed} consumer. */
    TXN_COMMITTED
}
