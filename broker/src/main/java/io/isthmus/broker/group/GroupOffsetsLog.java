package io.isthmus.broker.group;

import io.isthmus.broker.log.LogReplay;
import io.isthmus.broker.log.PartitionLog;
import io.isthmus.protocol.record.EndTransactionMarker;
import io.isthmus.protocol.record.Record;
import io.isthmus.protocol.record.RecordBatch;
import io.isthmus.protocol.record.RecordBatchBuilder;
import io.isthmus.protocol.record.RecordBatchDescriptor;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The committed offsets of the consumer groups of one partition of a cluster's {@code __consumer_offsets}, kept in
 * that partition's log, which its coordinator leads: one record per group and partition, the last one of a key wins,
 * and a record without a value (a tombstone) removes it. A commit is one batch, so its offsets are taken whole or not
 * at all, and it counts once the partition's in-sync replicas hold it; a coordinator elected after this one fails
 * {@link #load loads} every offset this one acknowledged.
 *
 * <p>Each offset is an {@link OffsetRecord}; each group's membership is kept beside its offsets, the last one written winning ({@link MembershipRecord}, keys
 * of version 2), for the coordinator elected after this one to restore the group without a rebalance.
 *
 * <p>Offsets a producer commits inside its transaction (TxnOffsetCommit) are written as a transactional batch with
 * the producer's id and epoch and no sequence numbers, as Kafka's group coordinator writes them, and wait, per
 * producer, for the transaction's marker: {@link #endTransaction} applies them to their groups on COMMIT (over what the
 * groups committed since) and drops them on ABORT. Loading finds them the same way, by the markers in the log; those
 * of a transaction still open stay pending.
 *
 * <p>Kafka compacts this topic. The log does the equivalent itself: once a segment has filled since the last time,
 * the live offsets are written again at the head and the segments before them deleted, so it stays about a segment
 * plus the live offsets. No segment goes from the first batch of a transaction still open on (the log's last stable
 * offset): its offsets are written only there, and are applied when its marker comes.
 *
 * <p>The offsets are held in memory as well, for OffsetFetch: {@link #committed} and {@link #pendingPartitions} may be called
 * from any thread, and see each change once it is durable. The changes ({@link #commit}, {@link #commitTransactional},
 * {@link #endTransaction}, {@link #deleteTopic}, {@link #compactIfDue}) and {@link #close} must be made one at a time,
 * each once the future of the one before has completed.
 */
public final class GroupOffsetsLog implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(GroupOffsetsLog.class);
    /** The internal topic's name, Kafka's. */
    public static final String TOPIC = "__consumer_offsets";

    /**
     * How a batch of offset records becomes durable: the future completes once it is, or fails (or the call throws),
     * and then the offsets did not change. The next change may be made on the thread that completes it, so that
     * thread must be free to append (not one holding a partition's lock).
     */
    @FunctionalInterface
    public interface Appender {
        CompletableFuture<Void> append(MemorySegment batch);
    }

    private final PartitionLog log;
    private final Appender appender;
    private final InstantSource clock;
    /** Per group, its offsets as an immutable map, replaced whole on each change. */
    private final Map<String, Map<TopicPartition, CommittedOffset>> groups = new ConcurrentHashMap<>();
    /** Per producer id, what its open transaction committed here, replaced whole on each change. */
    private final Map<Long, PendingTransaction> pending = new ConcurrentHashMap<>();
    /** Per group, the last membership its coordinator wrote ({@link MembershipRecord}). */
    private final Map<String, GroupMembership> memberships = new ConcurrentHashMap<>();

    private final RecordBatchBuilder builder = new RecordBatchBuilder();
    private int segmentsAfterCompaction;

    private GroupOffsetsLog(final PartitionLog log, final Appender appender, final InstantSource clock) {
        this.log = log;
        this.appender = appender;
        this.clock = clock;
    }

    /**
     * Reads {@code log}, a partition of {@code __consumer_offsets} this broker leads (and does not own), into memory;
     * {@code appender} appends as its leader and waits for the in-sync replicas.
     */
    public static GroupOffsetsLog load(final PartitionLog log, final Appender appender, final InstantSource clock) {
        final GroupOffsetsLog offsets = new GroupOffsetsLog(log, appender, clock);
        offsets.replay();
        offsets.segmentsAfterCompaction = log.segments().size();
        return offsets;
    }

    /**
     * The offsets one producer's open transaction committed here, by group (immutable), at its epoch; {@code
     * firstOffset} is where its first batch is in the log, below which compaction deletes nothing while it is pending.
     */
    private record PendingTransaction(
            short epoch, long firstOffset, Map<String, Map<TopicPartition, CommittedOffset>> offsets) {
        static PendingTransaction frozen(
                final short epoch,
                final long firstOffset,
                final Map<String, ? extends Map<TopicPartition, CommittedOffset>> offsets) {
            final Map<String, Map<TopicPartition, CommittedOffset>> copy = new HashMap<>();
            offsets.forEach((group, byPartition) ->
                    copy.put(group, Collections.unmodifiableMap(new LinkedHashMap<>(byPartition))));
            return new PendingTransaction(epoch, firstOffset, Map.copyOf(copy));
        }

        PendingTransaction with(final String group, final Map<TopicPartition, CommittedOffset> more) {
            final Map<String, Map<TopicPartition, CommittedOffset>> merged = new HashMap<>(offsets);
            final Map<TopicPartition, CommittedOffset> byPartition =
                    new LinkedHashMap<>(offsets.getOrDefault(group, Map.of()));
            byPartition.putAll(more);
            merged.put(group, byPartition);
            return frozen(epoch, firstOffset, merged);
        }

        PendingTransaction withoutTopic(final String topic) {
            final Map<String, Map<TopicPartition, CommittedOffset>> kept = new HashMap<>();
            offsets.forEach((group, byPartition) -> {
                final Map<TopicPartition, CommittedOffset> left = new LinkedHashMap<>(byPartition);
                left.keySet().removeIf(partition -> partition.topic().equals(topic));
                kept.put(group, left);
            });
            return frozen(epoch, firstOffset, kept);
        }
    }

    /** A producer's transaction as the log is read: mutable, frozen once the whole log is read. */
    private static final class LoadingTransaction {
        final short epoch;
        final long firstOffset;
        final Map<String, Map<TopicPartition, CommittedOffset>> offsets = new HashMap<>();

        LoadingTransaction(final short epoch, final long firstOffset) {
            this.epoch = epoch;
            this.firstOffset = firstOffset;
        }
    }

    /**
     * Reads the log into mutable maps, published once whole: the copy-on-write of {@link #put} would copy a group's
     * offsets for every record read.
     */
    private void replay() {
        final Map<String, Map<TopicPartition, CommittedOffset>> loaded = new HashMap<>();
        final Map<Long, LoadingTransaction> loadedPending = new HashMap<>();
        final long records = LogReplay.forEachBatchRecord(log, (batch, record) -> {
            if (batch.isControl()) {
                endLoaded(loaded, loadedPending, batch);
                return;
            }
            final ByteBuffer key = ByteBuffer.wrap(record.keyAsArray());
            if (key.getShort() == MembershipRecord.KEY_VERSION) {
                replayMembership(key, record);
                return;
            }
            key.rewind();
            final OffsetRecord read = OffsetRecord.read(
                    key, record.hasValue() ? ByteBuffer.wrap(record.valueAsArray()) : null, log.dir());
            if (batch.isTransactional()) {
                LoadingTransaction transaction = loadedPending.get(batch.producerId());
                if (transaction == null || transaction.epoch < batch.producerEpoch()) {
                    transaction = new LoadingTransaction(batch.producerEpoch(), batch.baseOffset());
                    loadedPending.put(batch.producerId(), transaction);
                }
                if (read.offset() != null) {
                    transaction
                            .offsets
                            .computeIfAbsent(read.group(), g -> new LinkedHashMap<>())
                            .put(read.partition(), read.offset());
                }
                return;
            }
            final Map<TopicPartition, CommittedOffset> offsets =
                    loaded.computeIfAbsent(read.group(), g -> new LinkedHashMap<>());
            if (read.offset() != null) {
                offsets.put(read.partition(), read.offset());
                return;
            }
            offsets.remove(read.partition());
            for (final LoadingTransaction transaction : loadedPending.values()) {
                final Map<TopicPartition, CommittedOffset> staged = transaction.offsets.get(read.group());
                if (staged != null) {
                    staged.remove(read.partition());
                }
            }
        });
        loaded.forEach((group, offsets) -> {
            if (!offsets.isEmpty()) {
                groups.put(group, Collections.unmodifiableMap(offsets));
            }
        });
        loadedPending.forEach((producerId, transaction) -> pending.put(
                producerId,
                PendingTransaction.frozen(transaction.epoch, transaction.firstOffset, transaction.offsets)));
        LOG.info(
                "loaded the offsets of {} groups and the memberships of {} from {} ({} records, offsets {}..{}); {}"
                        + " producers' transactions hold offsets not applied yet",
                groups.size(),
                memberships.size(),
                log.dir(),
                records,
                log.logStartOffset(),
                log.logEndOffset(),
                pending.size());
    }

    /**
     * A membership record read at load. One that cannot be read is skipped, with its group's earlier one: it only
     * spares a rebalance, and must not keep the partition's offsets from loading.
     */
    private void replayMembership(final ByteBuffer key, final Record record) {
        String group = null;
        try {
            group = MembershipRecord.groupOf(key);
            if (record.hasValue()) {
                memberships.put(group, MembershipRecord.read(group, ByteBuffer.wrap(record.valueAsArray())));
            } else {
                memberships.remove(group);
            }
        } catch (final RuntimeException unreadable) {
            if (group != null) {
                memberships.remove(group);
            }
            LOG.warn(
                    "{}: skipped a membership record that cannot be read (group={}): {}",
                    log.dir(),
                    group,
                    unreadable.toString());
        }
    }

    /**
     * A marker read at load: its producer's pending offsets are applied (COMMIT) or dropped (ABORT), unless they belong
     * to a newer epoch than the marker's.
     */
    private static void endLoaded(
            final Map<String, Map<TopicPartition, CommittedOffset>> loaded,
            final Map<Long, LoadingTransaction> loadedPending,
            final RecordBatch marker) {
        final short type = EndTransactionMarker.controlType(marker.segment(), marker.offset());
        final LoadingTransaction ended = loadedPending.get(marker.producerId());
        if (type == EndTransactionMarker.UNKNOWN || ended == null || ended.epoch > marker.producerEpoch()) {
            return;
        }
        loadedPending.remove(marker.producerId());
        if (type == EndTransactionMarker.COMMIT) {
            ended.offsets.forEach((group, offsets) ->
                    loaded.computeIfAbsent(group, g -> new LinkedHashMap<>()).putAll(offsets));
        }
    }

    private void put(final String group, final Map<TopicPartition, CommittedOffset> offsets) {
        final Map<TopicPartition, CommittedOffset> merged = new LinkedHashMap<>(groups.getOrDefault(group, Map.of()));
        merged.putAll(offsets);
        groups.put(group, Collections.unmodifiableMap(merged));
    }

    private void remove(final String group, final Predicate<TopicPartition> removed) {
        final Map<TopicPartition, CommittedOffset> offsets = groups.get(group);
        if (offsets == null) {
            return;
        }
        final Map<TopicPartition, CommittedOffset> kept = new LinkedHashMap<>(offsets);
        kept.keySet().removeIf(removed);
        if (kept.isEmpty()) {
            groups.remove(group);
        } else {
            groups.put(group, Collections.unmodifiableMap(kept));
        }
    }

    /** The group's committed offsets, empty if it never committed here. */
    public Map<TopicPartition, CommittedOffset> committed(final String groupId) {
        return groups.getOrDefault(groupId, Map.of());
    }

    /** Ids of the groups with committed offsets here. */
    public Set<String> groupIds() {
        return Set.copyOf(groups.keySet());
    }

    /** The last membership written of each group that has one here, for the coordinator to restore. */
    public List<GroupMembership> memberships() {
        return List.copyOf(memberships.values());
    }

    /**
     * Writes the group's membership and, once durable, makes it the one {@link #memberships} gives; a group without
     * members gets a tombstone, and none. If it cannot be written, the group has none here from then on: compaction
     * must not write an older one after a newer one the log may hold.
     *
     * @return completes once written; fails as {@link #commit} does, INVALID_COMMIT_OFFSET_SIZE for a membership larger
     *     than the log takes
     */
    public CompletableFuture<Void> storeMembership(final GroupMembership membership) {
        final String groupId = membership.groupId();
        final boolean empty = membership.members().isEmpty();
        final List<byte[]> keys = List.of(MembershipRecord.key(groupId));
        final List<byte[]> values = new ArrayList<>();
        values.add(empty ? null : MembershipRecord.value(membership));
        final int size = batchSize(keys, values, 0, 1);
        final CompletableFuture<Void> written = size > largestBatch()
                ? CompletableFuture.failedFuture(Errors.INVALID_COMMIT_OFFSET_SIZE.exception("the membership of group "
                        + groupId + " (" + membership.members().size() + " members) makes a batch of " + size
                        + " bytes, over what the log takes"))
                : append(
                        keys,
                        values,
                        0,
                        1,
                        RecordBatchDescriptor.NO_PRODUCER_ID,
                        RecordBatchDescriptor.NO_PRODUCER_EPOCH);
        return written.whenComplete((ignored, failure) -> {
            if (failure != null || empty) {
                memberships.remove(groupId);
            } else {
                memberships.put(groupId, membership);
            }
        });
    }

    /**
     * The partitions of {@code groupId} for which a transaction not ended yet committed an offset here. When one ends,
     * its offsets become the group's before they stop being pending: a reader that asks this before it reads {@link
     * #committed} never takes an offset the transaction is replacing for a stable one.
     */
    public Set<TopicPartition> pendingPartitions(final String groupId) {
        final Set<TopicPartition> partitions = new HashSet<>();
        for (final PendingTransaction transaction : pending.values()) {
            partitions.addAll(
                    transaction.offsets().getOrDefault(groupId, Map.of()).keySet());
        }
        return partitions;
    }

    /**
     * Appends the offsets as one batch and, once durable, makes them the group's.
     *
     * @return completes once the offsets are the group's; fails with INVALID_COMMIT_OFFSET_SIZE if the batch would be
     *     larger than the partition's {@code message.max.bytes}, or as the appender failed (nothing changed)
     */
    public CompletableFuture<Void> commit(final String groupId, final Map<TopicPartition, CommittedOffset> offsets) {
        return appendCommit(
                        groupId, offsets, RecordBatchDescriptor.NO_PRODUCER_ID, RecordBatchDescriptor.NO_PRODUCER_EPOCH)
                .thenRun(() -> put(groupId, offsets));
    }

    /**
     * Appends the offsets as one transactional batch of the producer and, once durable, holds them for its open
     * transaction: {@link #endTransaction} applies or drops them.
     *
     * @return completes once the offsets are held; fails as {@link #commit} does, or with the log's refusal (a stale
     *     producer epoch, a transaction that does not include this partition)
     */
    public CompletableFuture<Void> commitTransactional(
            final String groupId,
            final long producerId,
            final short producerEpoch,
            final Map<TopicPartition, CommittedOffset> offsets) {
        // Changes are made one at a time and this log's leader writes nothing else: the batch goes at the end.
        final long firstOffset = log.logEndOffset();
        return appendCommit(groupId, offsets, producerId, producerEpoch)
                .thenRun(() -> stage(producerId, producerEpoch, firstOffset, groupId, offsets));
    }

    /**
     * The producer's transaction ended, its marker at {@code producerEpoch} durable in the log: the offsets it committed
     * here become their groups' if it committed, and are dropped if it aborted. A marker older than the offsets'
     * epoch ends an earlier transaction, and changes nothing. Nothing is written.
     */
    public void endTransaction(final long producerId, final short producerEpoch, final boolean commit) {
        final PendingTransaction ended = pending.get(producerId);
        if (ended == null || ended.epoch() > producerEpoch) {
            return;
        }
        if (commit) {
            ended.offsets().forEach(this::put);
        }
        // Last, so that a reader never finds the offsets neither pending nor the group's.
        pending.remove(producerId, ended);
    }

    private CompletableFuture<Void> appendCommit(
            final String groupId,
            final Map<TopicPartition, CommittedOffset> offsets,
            final long producerId,
            final short producerEpoch) {
        if (offsets.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        final List<byte[]> keys = new ArrayList<>(offsets.size());
        final List<byte[]> values = new ArrayList<>(offsets.size());
        addRecords(groupId, offsets, keys, values);
        final int size = batchSize(keys, values, 0, keys.size());
        if (size > largestBatch()) {
            // Kafka's answer to a commit its log refuses as too large; clients do not retry it.
            return CompletableFuture.failedFuture(Errors.INVALID_COMMIT_OFFSET_SIZE.exception("the offsets of "
                    + offsets.size() + " partitions of group " + groupId + " make a batch of " + size
                    + " bytes, over what the log takes (message.max.bytes="
                    + log.config().messageMaxBytes()
                    + ", segment bytes=" + log.config().segmentBytes() + ")"));
        }
        return append(keys, values, 0, keys.size(), producerId, producerEpoch);
    }

    private void stage(
            final long producerId,
            final short producerEpoch,
            final long firstOffset,
            final String groupId,
            final Map<TopicPartition, CommittedOffset> offsets) {
        final PendingTransaction current = pending.get(producerId);
        final PendingTransaction open = current == null || current.epoch() < producerEpoch
                ? new PendingTransaction(producerEpoch, firstOffset, Map.of())
                : current;
        pending.put(producerId, open.with(groupId, offsets));
    }

    /** Removes every group's offsets of {@code topic}, with tombstones, each batch of them once it is durable. */
    public CompletableFuture<Void> deleteTopic(final String topic) {
        // Committed offsets and those open transactions hold: a tombstone drops both when the log is read again.
        final Map<String, Set<TopicPartition>> doomed = new LinkedHashMap<>();
        groups.forEach((group, offsets) -> collect(topic, group, offsets, doomed));
        pending.values()
                .forEach(transaction ->
                        transaction.offsets().forEach((group, offsets) -> collect(topic, group, offsets, doomed)));
        final List<String> owners = new ArrayList<>();
        final List<TopicPartition> partitions = new ArrayList<>();
        final List<byte[]> keys = new ArrayList<>();
        doomed.forEach((group, gone) -> gone.forEach(partition -> {
            owners.add(group);
            partitions.add(partition);
            keys.add(OffsetRecord.key(group, partition));
        }));
        final List<byte[]> values = new ArrayList<>(keys.size());
        keys.forEach(k -> values.add(null));
        return appendInBatches(keys, values, (from, to) -> {
                    // One copy of each group's offsets per batch, not one per tombstone.
                    final Map<String, Set<TopicPartition>> removed = new HashMap<>();
                    for (int i = from; i < to; i++) {
                        removed.computeIfAbsent(owners.get(i), g -> new HashSet<>())
                                .add(partitions.get(i));
                    }
                    removed.forEach((group, gone) -> remove(group, gone::contains));
                })
                .thenRun(() -> forgetPending(topic));
    }

    private static void collect(
            final String topic,
            final String group,
            final Map<TopicPartition, CommittedOffset> offsets,
            final Map<String, Set<TopicPartition>> into) {
        for (final TopicPartition partition : offsets.keySet()) {
            if (partition.topic().equals(topic)) {
                into.computeIfAbsent(group, g -> new LinkedHashSet<>()).add(partition);
            }
        }
    }

    /** Drops what open transactions committed for a deleted topic, as its tombstones do when the log is loaded. */
    private void forgetPending(final String topic) {
        pending.replaceAll((producerId, transaction) -> transaction.withoutTopic(topic));
    }

    /**
     * Writes every live offset again and deletes the segments they supersede, if a segment has filled since the last
     * time; the future completes when done (or failed: then it is tried again once another segment fills). The
     * segments go only once the rewritten offsets are all in the log, and never past the high watermark, so a crash
     * midway loses nothing.
     */
    public CompletableFuture<Void> compactIfDue() {
        if (log.segments().size() <= segmentsAfterCompaction) {
            return CompletableFuture.completedFuture(null);
        }
        segmentsAfterCompaction = log.segments().size();
        final long snapshotStart = log.logEndOffset();
        final List<byte[]> keys = new ArrayList<>();
        final List<byte[]> values = new ArrayList<>();
        groups.forEach((groupId, offsets) -> addRecords(groupId, offsets, keys, values));
        memberships.forEach((groupId, membership) -> {
            keys.add(MembershipRecord.key(groupId));
            values.add(MembershipRecord.value(membership));
        });
        if (keys.isEmpty()) {
            // Nothing to write again, so no append to prove this broker still leads the partition: the segments stay
            // until offsets are committed here again.
            return CompletableFuture.completedFuture(null);
        }
        return appendInBatches(keys, values, (from, to) -> {}).thenRun(() -> {
            // Nothing from a pending transaction's first batch on: its offsets are written nowhere else. That is below
            // the log's last stable offset too, unless its marker is in the log but not yet confirmed by the replicas
            // (the coordinator writes it again, and the offsets are applied then).
            long keepFrom = Math.min(snapshotStart, log.lastStableOffset());
            for (final PendingTransaction transaction : pending.values()) {
                keepFrom = Math.min(keepFrom, transaction.firstOffset());
            }
            final int deleted = log.deleteSegmentsBelow(keepFrom);
            segmentsAfterCompaction = log.segments().size();
            LOG.info(
                    "compacted {}: the offsets of {} groups and {} memberships rewritten from offset {}, {} segments"
                            + " deleted",
                    log.dir(),
                    groups.size(),
                    memberships.size(),
                    snapshotStart,
                    deleted);
        });
    }

    /** Adds the key and value of each of the group's offsets. */
    private static void addRecords(
            final String groupId,
            final Map<TopicPartition, CommittedOffset> offsets,
            final List<byte[]> keys,
            final List<byte[]> values) {
        for (final Map.Entry<TopicPartition, CommittedOffset> entry : offsets.entrySet()) {
            keys.add(OffsetRecord.key(groupId, entry.getKey()));
            values.add(OffsetRecord.value(entry.getValue()));
        }
    }

    /** The largest batch the log takes: {@code message.max.bytes}, and no more than a segment. */
    private int largestBatch() {
        return Math.min(log.config().messageMaxBytes(), log.config().segmentBytes());
    }

    /**
     * Appends the records in batches of at most half of what the log takes, one after another; {@code afterEach} is
     * told each batch's range of records once that batch is durable.
     */
    private CompletableFuture<Void> appendInBatches(
            final List<byte[]> keys, final List<byte[]> values, final BiConsumer<Integer, Integer> afterEach) {
        final int limit = Math.max(1, largestBatch() / 2);
        CompletableFuture<Void> written = CompletableFuture.completedFuture(null);
        int from = 0;
        while (from < keys.size()) {
            int size = RecordBatchDescriptor.HEADER_LENGTH + recordSize(keys, values, from, 0);
            int to = from + 1;
            while (to < keys.size()) {
                final int next = size + recordSize(keys, values, to, to - from);
                if (next > limit) {
                    break;
                }
                size = next;
                to++;
            }
            final int start = from;
            final int end = to;
            written = written.thenCompose(ignored -> append(
                            keys,
                            values,
                            start,
                            end,
                            RecordBatchDescriptor.NO_PRODUCER_ID,
                            RecordBatchDescriptor.NO_PRODUCER_EPOCH))
                    .thenRun(() -> afterEach.accept(start, end));
            from = to;
        }
        return written;
    }

    private static int recordSize(
            final List<byte[]> keys, final List<byte[]> values, final int index, final int offsetDelta) {
        final byte[] value = values.get(index);
        return RecordBatchBuilder.sizeOfRecord(
                offsetDelta, 0, keys.get(index).length, value == null ? -1 : value.length, null);
    }

    private static int batchSize(final List<byte[]> keys, final List<byte[]> values, final int from, final int to) {
        int size = RecordBatchDescriptor.HEADER_LENGTH;
        for (int i = from; i < to; i++) {
            size += recordSize(keys, values, i, i - from);
        }
        return size;
    }

    /** Appends records {@code from..to} as one batch, transactional for the producer if {@code producerId >= 0}. */
    private CompletableFuture<Void> append(
            final List<byte[]> keys,
            final List<byte[]> values,
            final int from,
            final int to,
            final long producerId,
            final short producerEpoch) {
        final int capacity = batchSize(keys, values, from, to);
        final MemorySegment buffer = MemorySegment.ofArray(new byte[capacity]);
        builder.producer(producerId, producerEpoch, RecordBatchDescriptor.NO_SEQUENCE)
                .transactional(producerId >= 0)
                .begin(buffer, 0, capacity, 0L);
        final long now = clock.millis();
        for (int i = from; i < to; i++) {
            builder.append(now, keys.get(i), values.get(i));
        }
        final int size = builder.finish();
        try {
            return appender.append(buffer.asSlice(0, size));
        } catch (final RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public void close() {
        builder.close();
    }
}
