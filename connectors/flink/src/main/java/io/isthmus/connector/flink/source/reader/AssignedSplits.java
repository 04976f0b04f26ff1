package io.isthmus.connector.flink.source.reader;

import io.isthmus.connector.flink.source.split.IsthmusPartitionSplit;
import java.util.Arrays;
import java.util.Collection;

/**
 * The splits a split reader had when it polled: an immutable snapshot, so the task thread can look records' splits up
 * while the fetcher thread goes on with changed assignments. Looked up once per run of a partition's records in a
 * batch, by a scan that compares the partition number first (a handful of splits per reader).
 */
final class AssignedSplits {
    static final AssignedSplits NONE = new AssignedSplits(new Entry[0]);

    /** One split: its id and the offset it stops before. */
    static final class Entry {
        private final String topic;
        private final int partition;
        private final String splitId;
        private final long stoppingOffset;

        Entry(final IsthmusPartitionSplit split) {
            this.topic = split.partition().topic();
            this.partition = split.partition().partition();
            this.splitId = split.splitId();
            this.stoppingOffset = split.stoppingOffset();
        }

        String splitId() {
            return splitId;
        }

        boolean reads(final String topic, final int partition) {
            return this.partition == partition && this.topic.equals(topic);
        }

        /** Whether the record at {@code offset} lies at or past the stop. */
        boolean stopsBefore(final long offset) {
            return stoppingOffset != IsthmusPartitionSplit.NO_STOPPING_OFFSET && offset >= stoppingOffset;
        }

        @Override
        public String toString() {
            return splitId;
        }
    }

    private final Entry[] entries;

    private AssignedSplits(final Entry[] entries) {
        this.entries = entries;
    }

    static AssignedSplits of(final Collection<IsthmusPartitionSplit> splits) {
        final Entry[] entries = new Entry[splits.size()];
        int i = 0;
        for (final IsthmusPartitionSplit split : splits) {
            entries[i++] = new Entry(split);
        }
        return new AssignedSplits(entries);
    }

    /** The split reading this partition, or null. */
    Entry find(final String topic, final int partition) {
        for (final Entry entry : entries) {
            if (entry.reads(topic, partition)) {
                return entry;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return Arrays.toString(entries);
    }
}
