package io.isthmus.broker.partition;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A leader's view of its replicated partition (Kafka's {@code PartitionState} and remote replicas): the ISR the
 * cluster agreed on, the change it asked for and awaits, and each follower's {@link ReplicaProgress}. From them come
 * the high watermark and the ISR changes to ask for.
 *
 * <p><b>Maximal ISR.</b> While an expansion is in flight the new member already counts for the high watermark and for
 * acks=all, as in Kafka: it holds the log up to the high watermark, and counting it early can only make the high
 * watermark wait longer. A shrink counts only once agreed, so the high watermark never moves on the word of a
 * follower the quorum may still consider in sync.
 *
 * <p><b>Unknown outcomes.</b> A change whose answer never came (a timeout, a quorum leader lost meanwhile) may still
 * be committed: it stays pending, its new members counted, until the cluster's metadata shows a partition epoch newer
 * than the one it was based on, or {@link #UNKNOWN_OUTCOME_MILLIS} have passed (longer than the quorum client retries
 * a command). Dropping it at once let a leader advance the high watermark past a member the quorum had just added.
 *
 * <p>Not thread-safe: the owning {@link Partition} guards it with its replication lock.
 */
final class InSyncReplicas {
    /** How long a change whose answer never came stays pending, at most. */
    static final long UNKNOWN_OUTCOME_MILLIS = 60_000;

    private final int localId;
    private final int leaderEpoch;
    private final long leaderEpochStartOffset;
    private List<Integer> replicas;
    private final Map<Integer, ReplicaProgress> followers = new HashMap<>();
    private List<Integer> isr;
    private int partitionEpoch;
    /** The ISR asked for and not answered yet, or null. */
    private List<Integer> pending;
    /** The partition epoch {@link #pending} was based on. */
    private int pendingBase;
    /** Until when a pending change whose answer never came is kept; -1 while its answer may still come. */
    private long pendingUnknownUntilMs = -1;

    InSyncReplicas(
            final int localId,
            final int leaderEpoch,
            final long leaderEpochStartOffset,
            final List<Integer> replicas,
            final List<Integer> isr,
            final int partitionEpoch,
            final long nowMs) {
        this.localId = localId;
        this.leaderEpoch = leaderEpoch;
        this.leaderEpochStartOffset = leaderEpochStartOffset;
        this.replicas = List.copyOf(replicas);
        this.isr = List.copyOf(isr);
        this.partitionEpoch = partitionEpoch;
        for (final int replica : replicas) {
            if (replica != localId) {
                followers.put(replica, new ReplicaProgress(replica, isr.contains(replica) ? nowMs : 0));
            }
        }
    }

    int leaderEpoch() {
        return leaderEpoch;
    }

    int partitionEpoch() {
        return partitionEpoch;
    }

    List<Integer> replicas() {
        return replicas;
    }

    /** The ISR the cluster agreed on. */
    List<Integer> isr() {
        return isr;
    }

    /** The agreed ISR plus members an expansion in flight adds. */
    List<Integer> maximalIsr() {
        if (pending == null) {
            return isr;
        }
        final LinkedHashSet<Integer> union = new LinkedHashSet<>(isr);
        union.addAll(pending);
        return List.copyOf(union);
    }

    boolean hasPendingChange() {
        return pending != null;
    }

    /** Forgets a change of unknown outcome kept for longer than {@link #UNKNOWN_OUTCOME_MILLIS}. */
    private void expireUnknown(final long nowMs) {
        if (pending != null && pendingUnknownUntilMs >= 0 && nowMs > pendingUnknownUntilMs) {
            pending = null;
            pendingUnknownUntilMs = -1;
        }
    }

    boolean isReplica(final int brokerId) {
        return followers.containsKey(brokerId);
    }

    /** A follower fetched; see {@link ReplicaProgress#onFetch}. */
    void onFollowerFetch(
            final int brokerId,
            final long fetchOffset,
            final long leaderEnd,
            final long nowMs,
            final boolean onlyForward) {
        final ReplicaProgress progress = followers.get(brokerId);
        if (progress != null) {
            progress.onFetch(
                    onlyForward ? Math.max(fetchOffset, progress.logEndOffset()) : fetchOffset, leaderEnd, nowMs);
        }
    }

    /** The offset every member of the maximal ISR holds, the leader's log ending at {@code leaderEnd}. */
    long highWatermarkCandidate(final long leaderEnd) {
        long candidate = leaderEnd;
        for (final int member : maximalIsr()) {
            if (member == localId) {
                continue;
            }
            final ReplicaProgress progress = followers.get(member);
            final long end = progress == null ? ReplicaProgress.UNKNOWN : progress.logEndOffset();
            if (end == ReplicaProgress.UNKNOWN) {
                return ReplicaProgress.UNKNOWN;
            }
            candidate = Math.min(candidate, end);
        }
        return candidate;
    }

    /**
     * The ISR to ask for if {@code brokerId}, not in it, has caught up: it holds the log up to the high watermark and
     * past the start of this leader's epoch (so it has truncated to this leader's history), and {@code mayJoin} says
     * the quorum would take it. Empty while another change is in flight.
     */
    Optional<List<Integer>> expansionFor(
            final int brokerId,
            final long highWatermark,
            final java.util.function.IntPredicate mayJoin,
            final long nowMs) {
        expireUnknown(nowMs);
        final ReplicaProgress progress = followers.get(brokerId);
        if (pending != null || progress == null || isr.contains(brokerId) || !mayJoin.test(brokerId)) {
            return Optional.empty();
        }
        final long end = progress.logEndOffset();
        if (end == ReplicaProgress.UNKNOWN || end < highWatermark || end < leaderEpochStartOffset) {
            return Optional.empty();
        }
        final List<Integer> grown = new ArrayList<>(isr);
        grown.add(brokerId);
        return Optional.of(List.copyOf(grown));
    }

    /**
     * The ISR to ask for without the followers that have not been caught up for longer than {@code maxLagMs}. Empty
     * if none lags or another change is in flight.
     */
    Optional<List<Integer>> shrinkAt(final long nowMs, final long maxLagMs) {
        expireUnknown(nowMs);
        if (pending != null) {
            return Optional.empty();
        }
        final List<Integer> kept = new ArrayList<>(isr.size());
        for (final int member : isr) {
            final ReplicaProgress progress = followers.get(member);
            if (member == localId || progress == null || nowMs - progress.lastCaughtUpTimeMs() <= maxLagMs) {
                kept.add(member);
            }
        }
        return kept.size() == isr.size() ? Optional.empty() : Optional.of(List.copyOf(kept));
    }

    /** {@code requested} was sent to the quorum; nothing else is asked for until it is answered. */
    void changeSent(final List<Integer> requested) {
        pending = List.copyOf(requested);
        pendingBase = partitionEpoch;
        pendingUnknownUntilMs = -1;
    }

    /** The quorum answered the change in flight, taking or refusing it: it is no longer pending. */
    void changeAnswered() {
        pending = null;
        pendingUnknownUntilMs = -1;
    }

    /** The change in flight got no answer: it may yet be committed, so it stays pending for a while. */
    void changeOutcomeUnknown(final long nowMs) {
        if (pending != null) {
            pendingUnknownUntilMs = nowMs + UNKNOWN_OUTCOME_MILLIS;
        }
    }

    /**
     * The replicas the cluster's metadata names at {@code metadataPartitionEpoch}: a reassignment adds replicas (and
     * a cancelled one drops them) within a leader epoch, so the leader starts tracking a new replica here, as not
     * caught up, and forgets one that left. Metadata older than the partition epoch known changes nothing.
     */
    void replicasAre(final List<Integer> current, final int metadataPartitionEpoch, final long nowMs) {
        if (metadataPartitionEpoch < partitionEpoch || current.equals(replicas)) {
            return;
        }
        replicas = List.copyOf(current);
        followers.keySet().retainAll(replicas);
        for (final int replica : replicas) {
            if (replica != localId) {
                followers.computeIfAbsent(replica, id -> new ReplicaProgress(id, isr.contains(id) ? nowMs : 0));
            }
        }
    }

    /**
     * The ISR and partition epoch the cluster agreed on, from an answer or from its metadata; an older partition epoch
     * than the one known changes nothing. Returns whether anything changed.
     */
    boolean agreed(final List<Integer> agreedIsr, final int agreedPartitionEpoch) {
        if (pending != null && pendingUnknownUntilMs >= 0 && agreedPartitionEpoch > pendingBase) {
            // The metadata moved past the state the unanswered change was based on: it is decided either way.
            pending = null;
            pendingUnknownUntilMs = -1;
        }
        if (agreedPartitionEpoch < partitionEpoch
                || (agreedPartitionEpoch == partitionEpoch && agreedIsr.equals(isr))) {
            return false;
        }
        isr = List.copyOf(agreedIsr);
        partitionEpoch = agreedPartitionEpoch;
        return true;
    }

    @Override
    public String toString() {
        return "InSyncReplicas{leaderEpoch=" + leaderEpoch + ", partitionEpoch=" + partitionEpoch + ", isr=" + isr
                + ", pending=" + pending + ", followers=" + followers.values() + '}';
    }
}
