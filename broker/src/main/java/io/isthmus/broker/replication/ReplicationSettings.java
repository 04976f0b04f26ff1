package io.isthmus.broker.replication;

/**
 * How followers fetch and when a leader drops one from the ISR.
 *
 * @param fetchWaitMaxMs {@code replica.fetch.wait.max.ms}: how long a fetch waits at the leader for new data
 * @param fetchMaxBytes {@code replica.fetch.max.bytes}: bytes per partition and fetch (at least one batch)
 * @param requestTimeoutMs how long past the fetch's wait a response may take before the connection is dropped
 * @param lagTimeMaxMs {@code replica.lag.time.max.ms}: how long a follower may go without catching up and stay in the
 *     ISR
 */
public record ReplicationSettings(int fetchWaitMaxMs, int fetchMaxBytes, int requestTimeoutMs, long lagTimeMaxMs) {
    public ReplicationSettings {
        if (fetchWaitMaxMs < 0 || fetchMaxBytes < 1 || requestTimeoutMs < 1 || lagTimeMaxMs <= fetchWaitMaxMs) {
            throw new IllegalArgumentException("replication settings out of range: fetchWaitMaxMs=" + fetchWaitMaxMs
                    + " fetchMaxBytes=" + fetchMaxBytes + " requestTimeoutMs=" + requestTimeoutMs + " lagTimeMaxMs="
                    + lagTimeMaxMs);
        }
    }
}
