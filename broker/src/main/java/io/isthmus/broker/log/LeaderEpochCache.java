package io.isthmus.broker.log;

import java.util.Arrays;

/**
 * Where each leader epoch begins in one partition log: the offset of the first batch appended in that epoch (Kafka's
 * {@code LeaderEpochFileCache}, KIP-101). A replica that was a leader or a follower asks it one question, "where does
 * epoch {@code e} end here?" ({@link #endOffsetFor}), and the answer decides how far a diverging replica truncates.
 *
 * <pre>
 *   epoch:        0            3               4
 *   start offset: 0            120             455          log end offset 610
 *   log:          [ 0 .. 119 ][ 120 .. 454    ][ 455 .. 609 ]
 *   endOffsetFor(0) = (0, 120)    endOffsetFor(2) = (0, 120)    endOffsetFor(4) = (4, 610)
 * </pre>
 *
 * <p><b>No checkpoint file.</b> Kafka keeps this table in a {@code leader-epoch-checkpoint} file. Here it is derived
 * from the log itself each time the log opens, from the batches' {@code partitionLeaderEpoch} fields during the scan
 * that already rebuilds the idempotent-producer state. That loses nothing Kafka keeps: every entry that starts below
 * the log end offset is the first batch of its epoch (an epoch assigned with no batch of its own is removed when a
 * later epoch starts at the same offset, see {@link #assign}), and entries that start at the log end offset are exactly
 * those Kafka's log loading truncates away. A table rebuilt from the log also cannot disagree with it after a crash.
 *
 * <p>Threads: written by the log's appender under its append lock; read by any thread without a lock. Every change
 * publishes a new immutable array (epochs change once per leader election, so copying is cheap), readers see one whole
 * table.
 */
public final class LeaderEpochCache {
    /** Kafka's {@code UNDEFINED_EPOCH}: no epoch is known. */
    public static final int UNDEFINED_EPOCH = -1;
    /** Kafka's {@code UNDEFINED_EPOCH_OFFSET}: no end offset is known. */
    public static final long UNDEFINED_OFFSET = -1L;

    /** One epoch and the offset its first batch has. */
    public record Entry(int epoch, long startOffset) {}

    /**
     * An answer of {@link #endOffsetFor}: the largest epoch at or below the one asked for, and the offset where it
     * ends in this log; {@link #UNDEFINED} when this log knows no such epoch.
     */
    public record EpochEndOffset(int epoch, long endOffset) {
        public static final EpochEndOffset UNDEFINED = new EpochEndOffset(UNDEFINED_EPOCH, UNDEFINED_OFFSET);

        public boolean isUndefined() {
            return epoch == UNDEFINED_EPOCH;
        }
    }

    private static final Entry[] NONE = new Entry[0];

    private final String partition;
    /** Ascending in both epoch and start offset. */
    private volatile Entry[] entries = NONE;

    LeaderEpochCache(final String partition) {
        this.partition = partition;
    }

    /** The entries, oldest first. */
    public Entry[] entries() {
        return entries.clone();
    }

    /** The newest epoch that has an entry, or {@link #UNDEFINED_EPOCH}. */
    public int latestEpoch() {
        final Entry[] current = entries;
        return current.length == 0 ? UNDEFINED_EPOCH : current[current.length - 1].epoch();
    }

    /** The epoch of the newest entry that begins at or before {@code offset}, or {@link #UNDEFINED_EPOCH}. */
    public int epochAt(final long offset) {
        final Entry[] current = entries;
        for (int i = current.length - 1; i >= 0; i--) {
            if (current[i].startOffset() <= offset) {
                return current[i].epoch();
            }
        }
        return UNDEFINED_EPOCH;
    }

    /**
     * Records that {@code epoch} begins at {@code startOffset}, unless that is already known. As in Kafka, an entry
     * that is not newer in both epoch and offset than all others removes those it contradicts (epochs at or above it,
     * and entries starting at or after it): the log below {@code startOffset} is what remains true. Appender only.
     *
     * @return whether the table changed
     */
    boolean assign(final int epoch, final long startOffset) {
        if (epoch < 0 || startOffset < 0) {
            throw new IllegalArgumentException("leader epoch entry out of range: partition=" + partition + " epoch="
                    + epoch + " startOffset=" + startOffset);
        }
        final Entry[] current = entries;
        if (current.length > 0) {
            final Entry latest = current[current.length - 1];
            if (latest.epoch() == epoch && latest.startOffset() <= startOffset) {
                return false;
            }
        }
        int keep = current.length;
        while (keep > 0 && (current[keep - 1].epoch() >= epoch || current[keep - 1].startOffset() >= startOffset)) {
            keep--;
        }
        final Entry[] next = Arrays.copyOf(current, keep + 1);
        next[keep] = new Entry(epoch, startOffset);
        entries = next;
        return true;
    }

    /**
     * Where {@code requestedEpoch} ends in a log that ends at {@code logEndOffset} (Kafka's {@code endOffsetFor}):
     * <ul>
     *   <li>the newest epoch ends at the log end offset;
     *   <li>an older one ends where the next epoch this log knows begins, answered with the largest known epoch at or
     *       below the one asked for (the asker may not know that epochs were skipped here);
     *   <li>an epoch older than every entry is answered with itself and the first entry's start: what came before has
     *       been deleted, and the asker may replicate from there;
     *   <li>{@link EpochEndOffset#UNDEFINED} for {@link #UNDEFINED_EPOCH}, an empty table, or an epoch newer than all.
     * </ul>
     */
    public EpochEndOffset endOffsetFor(final int requestedEpoch, final long logEndOffset) {
        final Entry[] current = entries;
        if (requestedEpoch == UNDEFINED_EPOCH || current.length == 0) {
            return EpochEndOffset.UNDEFINED;
        }
        if (current[current.length - 1].epoch() == requestedEpoch) {
            return new EpochEndOffset(requestedEpoch, logEndOffset);
        }
        int higher = 0;
        while (higher < current.length && current[higher].epoch() <= requestedEpoch) {
            higher++;
        }
        if (higher == current.length) {
            return EpochEndOffset.UNDEFINED;
        }
        if (higher == 0) {
            return new EpochEndOffset(requestedEpoch, current[0].startOffset());
        }
        return new EpochEndOffset(current[higher - 1].epoch(), current[higher].startOffset());
    }

    /** Removes the entries that start at or after {@code endOffset}: the log was truncated there. Appender only. */
    void truncateFromEnd(final long endOffset) {
        final Entry[] current = entries;
        int keep = current.length;
        while (keep > 0 && current[keep - 1].startOffset() >= endOffset) {
            keep--;
        }
        if (keep < current.length) {
            entries = Arrays.copyOf(current, keep);
        }
    }

    /**
     * Drops the entries of epochs that ended before {@code startOffset} and moves the start of the epoch that covers it
     * up to it: the log now begins there. Appender only.
     */
    void truncateFromStart(final long startOffset) {
        final Entry[] current = entries;
        int covering = -1;
        for (int i = 0; i < current.length && current[i].startOffset() <= startOffset; i++) {
            covering = i;
        }
        if (covering < 0 || (covering == 0 && current[0].startOffset() == startOffset)) {
            return;
        }
        final Entry[] next = Arrays.copyOfRange(current, covering, current.length);
        next[0] = new Entry(next[0].epoch(), startOffset);
        entries = next;
    }

    /** Forgets every entry (before the log is scanned again). Appender only. */
    void clear() {
        entries = NONE;
    }

    @Override
    public String toString() {
        return "LeaderEpochCache{partition=" + partition + ", entries=" + Arrays.toString(entries) + '}';
    }
}
