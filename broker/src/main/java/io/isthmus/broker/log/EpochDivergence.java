package io.isthmus.broker.log;

import io.isthmus.broker.log.LeaderEpochCache.EpochEndOffset;
import java.util.Optional;

/**
 * How a follower's log that diverged from its leader's is found and cut back (KIP-101, KIP-279, and the fetch-time
 * check of KIP-595): both sides of one rule, kept together so that they cannot drift apart.
 *
 * <p><b>The invariant</b> that makes leader epochs sufficient: every batch of one epoch was written by that epoch's
 * single leader, so two logs that hold a batch of the same epoch at the same offset agree on everything before it.
 * Where two logs diverge, then, the epochs tell where: the follower keeps what lies below the point where its newest
 * epoch ends in the leader's log, and no further than where the leader's answer epoch ends in its own.
 *
 * <ul>
 *   <li><b>Leader</b> ({@link #divergingEpoch}): a follower fetching at {@code fetchOffset} whose last fetched batch
 *       was of {@code lastFetchedEpoch} has diverged if the leader's log knows no such epoch or ends it before {@code
 *       fetchOffset}; it is answered with where that epoch (or the largest below it) ends.
 *   <li><b>Follower</b> ({@link #truncationFor}): given that answer, the offset to truncate to, and whether that is
 *       final. When the leader answered with an epoch the follower does not have, the follower cuts back to where its
 *       own largest epoch below that one ends and asks again with its new newest epoch (KIP-279), so a history of
 *       several elections unwinds in several steps, never too far.
 * </ul>
 */
public final class EpochDivergence {
    /** Where a follower truncates to, and whether it may fetch afterwards or must ask its leader again first. */
    public record Truncation(long offset, boolean complete) {}

    private EpochDivergence() {}

    /**
     * The leader's side: the epoch and end offset to answer a follower whose log diverged, or empty when its log is a
     * prefix of {@code leader} as far as it reaches ({@code lastFetchedEpoch} &lt; 0, a follower with nothing yet, is
     * never told to diverge).
     */
    public static Optional<EpochEndOffset> divergingEpoch(
            final PartitionLog leader, final int lastFetchedEpoch, final long fetchOffset) {
        if (lastFetchedEpoch < 0) {
            return Optional.empty();
        }
        final EpochEndOffset end = leader.endOffsetForEpoch(lastFetchedEpoch);
        if (end.epoch() < lastFetchedEpoch || end.endOffset() < fetchOffset) {
            return Optional.of(end);
        }
        return Optional.empty();
    }

    /**
     * The follower's side (Kafka's {@code getOffsetTruncationState}): where {@code follower} truncates to, given the
     * leader's answer for the follower's newest epoch. A leader that knows no end offset leaves the follower only what
     * it knows to be committed, its {@code highWatermark}.
     */
    public static Truncation truncationFor(
            final PartitionLog follower, final EpochEndOffset leaderAnswer, final long highWatermark) {
        final long followerEnd = follower.logEndOffset();
        if (leaderAnswer.endOffset() == LeaderEpochCache.UNDEFINED_OFFSET) {
            return new Truncation(Math.min(highWatermark, followerEnd), true);
        }
        if (leaderAnswer.isUndefined()) {
            return new Truncation(Math.min(leaderAnswer.endOffset(), followerEnd), true);
        }
        final EpochEndOffset own = follower.endOffsetForEpoch(leaderAnswer.epoch());
        if (own.isUndefined()) {
            // The follower has no epoch at or below the leader's: it can only keep what the leader vouches for.
            return new Truncation(Math.min(leaderAnswer.endOffset(), followerEnd), true);
        }
        if (own.epoch() != leaderAnswer.epoch()) {
            // The leader's epoch is unknown here: cut back to where the follower's own earlier epoch ends, then ask
            // the leader again about that one.
            return new Truncation(Math.min(own.endOffset(), followerEnd), false);
        }
        return new Truncation(Math.min(Math.min(own.endOffset(), leaderAnswer.endOffset()), followerEnd), true);
    }
}
