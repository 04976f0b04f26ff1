package io.isthmus.broker.partition;

/**
 * What a leader knows of one follower of its partition (Kafka's {@code Replica}): how far the follower's log reaches,
 * learnt from the offset it fetches at, and when it was last caught up, which decides whether it stays in the ISR.
 *
 * <p>"Caught up" follows Kafka: a fetch at the leader's log end catches the follower up now; a fetch at or past the
 * log end the leader had at the follower's previous fetch caught it up at that previous fetch. A follower that keeps
 * fetching but never reaches a recent log end falls behind by the time since.
 */
final class ReplicaProgress {
    static final long UNKNOWN = -1L;

    private final int brokerId;
    private long logEndOffset = UNKNOWN;
    private long lastCaughtUpTimeMs;
    private long lastFetchLeaderLogEndOffset;
    private long lastFetchTimeMs;

    /**
     * @param caughtUpAtMs when the follower counts as last caught up: the leadership's start for an in-sync follower
     *     (it had every acknowledged record then), 0 for one that is not
     */
    ReplicaProgress(final int brokerId, final long caughtUpAtMs) {
        this.brokerId = brokerId;
        this.lastCaughtUpTimeMs = caughtUpAtMs;
    }

    int brokerId() {
        return brokerId;
    }

    /** The follower's log end offset as of its last fetch, {@link #UNKNOWN} before its first. */
    long logEndOffset() {
        return logEndOffset;
    }

    long lastCaughtUpTimeMs() {
        return lastCaughtUpTimeMs;
    }

    /** The follower fetched at {@code fetchOffset} at {@code nowMs} while the leader's log ended at {@code leaderEnd}. */
    void onFetch(final long fetchOffset, final long leaderEnd, final long nowMs) {
        if (fetchOffset >= leaderEnd) {
            lastCaughtUpTimeMs = Math.max(lastCaughtUpTimeMs, nowMs);
        } else if (fetchOffset >= lastFetchLeaderLogEndOffset) {
            lastCaughtUpTimeMs = Math.max(lastCaughtUpTimeMs, lastFetchTimeMs);
        }
        logEndOffset = fetchOffset;
        lastFetchLeaderLogEndOffset = leaderEnd;
        lastFetchTimeMs = nowMs;
    }

    @Override
    public String toString() {
        return "ReplicaProgress{broker=" + brokerId + ", logEndOffset=" + logEndOffset + ", lastCaughtUpTimeMs="
                + lastCaughtUpTimeMs + '}';
    }
}
