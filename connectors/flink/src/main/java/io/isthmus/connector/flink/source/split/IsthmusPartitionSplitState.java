package io.isthmus.connector.flink.source.split;

/**
 * A split being read: its next offset moves as records are emitted (on the task thread), and a checkpoint turns it
 * back into a split that starts there.
 */
public final class IsthmusPartitionSplitState {
    private final IsthmusPartitionSplit split;
    private long nextOffset;

    public IsthmusPartitionSplitState(final IsthmusPartitionSplit split) {
        this.split = split;
        this.nextOffset = split.startingOffset();
    }

    public IsthmusPartitionSplit split() {
        return split;
    }

    /** The offset after the last record emitted, where a restore starts. */
    public long nextOffset() {
        return nextOffset;
    }

    public void nextOffset(final long offset) {
        this.nextOffset = offset;
    }

    public IsthmusPartitionSplit toSplit() {
        return split.withStartingOffset(nextOffset);
    }
}
