package io.isthmus.broker.group;

/**
 * The classic group protocol's states, as in Kafka's group coordinator.
 *
 * <pre>
 *   EMPTY --join--> PREPARING_REBALANCE --all joined / timeout--> COMPLETING_REBALANCE --leader syncs--> STABLE
 *     ^                 ^      |                                        |                                  |
 *     |                 |      +--no member left--> EMPTY               |                                  |
 *     |                 +----------- join / leave / session expiry -----+----------------------------------+
 *     +---- last member leaves or expires
 * </pre>
 */
public enum GroupState {
    /** No members; committed offsets may still exist. */
    EMPTY,
    /** Waiting for every known member to (re)join before a new generation starts. */
    PREPARING_REBALANCE,
    /** A generation started; waiting for the leader's assignment in SyncGroup. */
    COMPLETING_REBALANCE,
    /** Every member has its assignment; heartbeats keep them in. */
    STABLE
}
