package io.isthmus.client.consumer.internals;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * What the consumer reads and from where: the subscription or the manual assignment, the assigned partitions, the
 * paused ones, and per partition two positions:
 *
 * <ul>
 *   <li>the <em>position</em>: the offset of the next record the application gets, what commits commit;
 *   <li>the <em>fetch position</em>: the offset the next fetch starts from, ahead of the position while fetched data
 *       waits for the application (fetches are pipelined).
 * </ul>
 *
 * <p>This class is the one owner of positions: {@link PartitionState} exposes them read-only and every move goes
 * through a method here, named after why it happens: a seek, a reset, data fetched ({@link #advanceFetchPosition}),
 * data consumed ({@link #advancePosition}). A seek or a reset bumps the partition's generation, and data fetched under an
 * older generation is dropped wherever it is (in flight, buffered, or half-consumed by the iterator), so a position
 * never moves backwards because of stale data.
 *
 * <p>Owned by the consumer's polling thread.
 */
public final class SubscriptionState {
    private final Map<TopicPartition, PartitionState> assignment = new LinkedHashMap<>();
    private PartitionState[] partitions = new PartitionState[0];
    private Set<String> subscription = Set.of();
    private ConsumerRebalanceListener rebalanceListener;

    /**
     * One assigned partition: its positions (moved only by {@link SubscriptionState}), its leader and topic id (kept by
     * {@link ConsumerMetadata}), and what the last fetch said about its log.
     */
    public static final class PartitionState {
        private final TopicPartition topicPartition;
        private final String topic;
        private final int partition;
        private Uuid topicId = Uuid.ZERO_UUID;
        private int leader = -1;
        /** -1: unknown (needs the committed offset or a reset). */
        private long position = -1;

        private long fetchPosition = -1;
        private int generation;
        private boolean paused;
        private boolean assigned = true;
        private long highWatermark = -1;
        private long logStartOffset = -1;

        PartitionState(final TopicPartition topicPartition) {
            this.topicPartition = topicPartition;
            this.topic = topicPartition.topic();
            this.partition = topicPartition.partition();
        }

        public TopicPartition topicPartition() {
            return topicPartition;
        }

        public String topic() {
            return topic;
        }

        public int partition() {
            return partition;
        }

        public Uuid topicId() {
            return topicId;
        }

        /** The leader's node id, -1 if unknown. */
        public int leader() {
            return leader;
        }

        /** The offset of the next record the application gets; -1 until known. */
        public long position() {
            return position;
        }

        /** The offset the next fetch starts from. */
        public long fetchPosition() {
            return fetchPosition;
        }

        /** Bumped by every seek and reset: data fetched under an older generation is stale. */
        public int generation() {
            return generation;
        }

        public boolean hasPosition() {
            return position >= 0;
        }

        public boolean isPaused() {
            return paused;
        }

        /** The end of what this consumer may read: the high watermark, or the last stable offset with read_committed. */
        public long highWatermark() {
            return highWatermark;
        }

        public long logStartOffset() {
            return logStartOffset;
        }

        /** Whether a fetch may be sent for it now: positioned, led, not paused. */
        public boolean fetchable() {
            return !paused && position >= 0 && leader >= 0;
        }

        /**
         * Whether data fetched from {@code fetchOffset} under {@code fetchGeneration} still follows on from where this
         * partition fetches: still assigned, no seek or reset since, and nothing else fetched in between.
         */
        public boolean continuesAt(final int fetchGeneration, final long fetchOffset) {
            return assigned && generation == fetchGeneration && fetchPosition == fetchOffset;
        }

        void leader(final int leader, final Uuid topicId) {
            this.leader = leader;
            this.topicId = topicId;
        }

        /** What a fetch said: the readable end (high watermark, or last stable offset) and the log start offset. */
        void logBounds(final long highWatermark, final long logStartOffset) {
            this.highWatermark = highWatermark;
            this.logStartOffset = logStartOffset;
        }

        /** The leader's high watermark as an RDMA slot READ saw it (slots carry no log start offset). */
        void highWatermark(final long highWatermark) {
            this.highWatermark = Math.max(this.highWatermark, highWatermark);
        }

        /**
         * Records between the position and the high watermark the last fetch or slot READ reported, -1 while either is
         * unknown (Kafka's {@code currentLag}).
         */
        public long lag() {
            return position < 0 || highWatermark < 0 ? -1 : Math.max(0, highWatermark - position);
        }

        private void seek(final long offset) {
            position = offset;
            fetchPosition = offset;
            generation++;
        }

        @Override
        public String toString() {
            return topicPartition + "{position=" + position + ", fetchPosition=" + fetchPosition + ", leader=" + leader
                    + ", paused=" + paused + '}';
        }
    }

    // ------------------------------------------------------------------ subscription and assignment

    /**
     * Takes exactly these partitions, chosen by the application.
     *
     * @return the partitions no longer assigned, for the fetcher to let go of
     * @throws IllegalStateException after {@link #subscribe}
     */
    public List<PartitionState> assignFromUser(final Collection<TopicPartition> topicPartitions) {
        if (!subscription.isEmpty()) {
            throw new IllegalStateException("assign() after subscribe(): unsubscribe() first");
        }
        return assign(topicPartitions);
    }

    /**
     * Takes the partitions the group gave this member.
     *
     * @return the partitions no longer assigned, for the fetcher to let go of
     */
    public List<PartitionState> assignFromGroup(final Collection<TopicPartition> topicPartitions) {
        return assign(topicPartitions);
    }

    /**
     * Partitions that stay keep their state and position. Data fetched but not yet handed out is discarded on every
     * assignment change, so their fetch position goes back to their position: what was fetched past it is fetched
     * again rather than skipped. Partitions that go are marked unassigned, so data still in flight for them is dropped.
     */
    private List<PartitionState> assign(final Collection<TopicPartition> topicPartitions) {
        final Map<TopicPartition, PartitionState> next = new LinkedHashMap<>();
        for (final TopicPartition tp : topicPartitions) {
            final PartitionState existing = assignment.get(tp);
            next.put(tp, existing != null ? existing : new PartitionState(tp));
        }
        final List<PartitionState> removed = new ArrayList<>();
        for (final PartitionState old : partitions) {
            if (!next.containsKey(old.topicPartition)) {
                old.assigned = false;
                removed.add(old);
            } else if (old.hasPosition()) {
                old.fetchPosition = old.position;
            }
        }
        assignment.clear();
        assignment.putAll(next);
        partitions = assignment.values().toArray(new PartitionState[0]);
        return removed;
    }

    /** Subscribes to these topics for group management. */
    public void subscribe(final Collection<String> topics, final ConsumerRebalanceListener listener) {
        if (subscription.isEmpty() && !assignment.isEmpty()) {
            throw new IllegalStateException("subscribe() after assign(): unsubscribe() first");
        }
        this.subscription = Set.copyOf(topics);
        this.rebalanceListener = listener;
    }

    /**
     * Drops the subscription and every partition.
     *
     * @return the partitions no longer assigned
     */
    public List<PartitionState> unsubscribe() {
        subscription = Set.of();
        return assign(List.of());
    }

    public Set<String> subscription() {
        return subscription;
    }

    public boolean hasSubscription() {
        return !subscription.isEmpty();
    }

    /** The listener given with the subscription, or null. */
    public ConsumerRebalanceListener rebalanceListener() {
        return rebalanceListener;
    }

    /** A copy of the assigned partitions. */
    public Set<TopicPartition> assignedPartitions() {
        return Set.copyOf(assignment.keySet());
    }

    /** The assigned partitions, in assignment order, to iterate without allocating; do not modify. */
    public PartitionState[] partitions() {
        return partitions;
    }

    /** The state of an assigned partition; throws if it is not assigned. */
    public PartitionState partition(final TopicPartition topicPartition) {
        final PartitionState state = assignment.get(topicPartition);
        if (state == null) {
            throw new IllegalStateException(
                    "partition is not assigned: partition=" + topicPartition + ", assigned=" + assignment.keySet());
        }
        return state;
    }

    /** The topics of the assigned partitions. */
    public Set<String> assignedTopics() {
        final Set<String> topics = new HashSet<>();
        for (final PartitionState state : partitions) {
            topics.add(state.topic);
        }
        return topics;
    }

    /** Topic ids by name, as far as metadata knows them (commits and committed-offset lookups name both). */
    public Map<String, Uuid> topicIds() {
        final Map<String, Uuid> ids = new HashMap<>();
        for (final PartitionState state : partitions) {
            ids.put(state.topic, state.topicId);
        }
        return ids;
    }

    // ------------------------------------------------------------------ pausing

    public void pause(final TopicPartition topicPartition) {
        partition(topicPartition).paused = true;
    }

    public void resume(final TopicPartition topicPartition) {
        partition(topicPartition).paused = false;
    }

    public Set<TopicPartition> paused() {
        final Set<TopicPartition> paused = new HashSet<>();
        for (final PartitionState state : partitions) {
            if (state.paused) {
                paused.add(state.topicPartition);
            }
        }
        return paused;
    }

    // ------------------------------------------------------------------ positions

    /** Both positions to {@code offset}; data fetched before is stale from now on. */
    public void seek(final TopicPartition topicPartition, final long offset) {
        partition(topicPartition).seek(offset);
    }

    /**
     * The broker no longer has the partition's fetch position (retention, or a seek past the end): the position is
     * unknown until the committed offset or {@code auto.offset.reset} gives one, and data fetched before is stale.
     */
    public void requestPositionReset(final PartitionState state) {
        state.position = -1;
        state.generation++;
    }

    /** Data up to {@code nextOffset} has been fetched for the partition: the next fetch starts there. */
    public void advanceFetchPosition(final PartitionState state, final long nextOffset) {
        state.fetchPosition = nextOffset;
    }

    /**
     * The application has consumed the partition's records below {@code offset}, from data fetched under {@code
     * fetchGeneration}. Stale data moves nothing, and a position never moves backwards.
     */
    public void advancePosition(final PartitionState state, final int fetchGeneration, final long offset) {
        if (state.generation == fetchGeneration && offset > state.position) {
            state.position = offset;
        }
    }

    /**
     * A whole fetch handed to the application at once (a {@code ConsumerBatch}): every partition in it is consumed up
     * to the offset after its last whole batch.
     */
    public void advancePositions(final FetchedData data) {
        for (int i = 0; i < data.sliceCount(); i++) {
            final FetchedSlice slice = data.slice(i);
            advancePosition(slice.partition(), slice.generation(), slice.nextOffset());
        }
    }

    /** The positions of the partitions that have one: what a commit of "everything consumed" commits. */
    public Map<TopicPartition, Long> consumedPositions() {
        final Map<TopicPartition, Long> offsets = new HashMap<>();
        for (final PartitionState state : partitions) {
            if (state.hasPosition()) {
                offsets.put(state.topicPartition, state.position);
            }
        }
        return offsets;
    }

    /** The assigned partitions without a position, or null when every one has one (the common case: no allocation). */
    public List<TopicPartition> partitionsWithoutPosition() {
        List<TopicPartition> missing = null;
        for (final PartitionState state : partitions) {
            if (!state.hasPosition()) {
                if (missing == null) {
                    missing = new ArrayList<>();
                }
                missing.add(state.topicPartition);
            }
        }
        return missing;
    }
}
