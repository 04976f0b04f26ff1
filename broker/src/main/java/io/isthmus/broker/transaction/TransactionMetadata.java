package io.isthmus.broker.transaction;

import io.isthmus.broker.group.CommittedOffset;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * What the coordinator knows of one transactional id: its producer id and epoch, and the transaction open or ending
 * now. Immutable: every change makes a new value, which is written to the transaction state log before it replaces the
 * old one, so memory never runs ahead of what a restart would load.
 *
 * @param transactionalId the producer's {@code transactional.id}
 * @param producerId the producer id the id is bound to
 * @param producerEpoch the current epoch; requests with any other epoch are fenced
 * @param timeoutMs the producer's {@code transaction.timeout.ms}
 * @param state where the transaction stands
 * @param partitions the partitions the open (or ending) transaction wrote or may write to, in the order they were added
 * @param pendingOffsets per consumer group added to the transaction, the offsets committed in it so far: applied to
 *     the group on commit, dropped on abort
 * @param startTimestampMs when the open transaction began (its first partition or group), -1 when none is open
 * @param lastUpdateTimestampMs when the producer or the coordinator last changed this state
 */
public record TransactionMetadata(
        String transactionalId,
        long producerId,
        short producerEpoch,
        int timeoutMs,
        TransactionState state,
        Set<TopicPartition> partitions,
        Map<String, Map<TopicPartition, CommittedOffset>> pendingOffsets,
        long startTimestampMs,
        long lastUpdateTimestampMs) {

    public TransactionMetadata {
        partitions = java.util.Collections.unmodifiableSet(new LinkedHashSet<>(partitions));
        final Map<String, Map<TopicPartition, CommittedOffset>> copy = new LinkedHashMap<>();
        pendingOffsets.forEach((group, offsets) ->
                copy.put(group, java.util.Collections.unmodifiableMap(new LinkedHashMap<>(offsets))));
        pendingOffsets = java.util.Collections.unmodifiableMap(copy);
    }

    /** A transactional id seen for the first time, at epoch 0 with no transaction open. */
    static TransactionMetadata fresh(
            final String transactionalId, final long producerId, final int timeoutMs, final long nowMs) {
        return new TransactionMetadata(
                transactionalId,
                producerId,
                (short) 0,
                timeoutMs,
                TransactionState.EMPTY,
                Set.of(),
                Map.of(),
                -1,
                nowMs);
    }

    /** The same transaction in {@code next}, touched at {@code nowMs}. */
    TransactionMetadata inState(final TransactionState next, final long nowMs) {
        return new TransactionMetadata(
                transactionalId,
                producerId,
                producerEpoch,
                timeoutMs,
                next,
                partitions,
                pendingOffsets,
                startTimestampMs,
                nowMs);
    }

    /** The transaction ended ({@code state} is a complete state): nothing open, nothing pending. */
    TransactionMetadata completed(final TransactionState completeState, final long nowMs) {
        return new TransactionMetadata(
                transactionalId, producerId, producerEpoch, timeoutMs, completeState, Set.of(), Map.of(), -1, nowMs);
    }

    /**
     * Bound to {@code newProducerId} at {@code newEpoch} with no transaction open (InitProducerId), or with one still
     * ending when it is called to fence a producer: the caller aborts it before anything else happens.
     */
    TransactionMetadata withProducer(
            final long newProducerId, final short newEpoch, final int newTimeoutMs, final long nowMs) {
        return new TransactionMetadata(
                transactionalId,
                newProducerId,
                newEpoch,
                newTimeoutMs,
                state,
                partitions,
                pendingOffsets,
                startTimestampMs,
                nowMs);
    }

    /** The transaction, open from now if it was not, with {@code added} partitions. */
    TransactionMetadata withPartitions(final Collection<TopicPartition> added, final long nowMs) {
        final Set<TopicPartition> all = new LinkedHashSet<>(partitions);
        all.addAll(added);
        return new TransactionMetadata(
                transactionalId,
                producerId,
                producerEpoch,
                timeoutMs,
                TransactionState.ONGOING,
                all,
                state == TransactionState.ONGOING ? pendingOffsets : Map.of(),
                state == TransactionState.ONGOING ? startTimestampMs : nowMs,
                nowMs);
    }

    /** The transaction, open from now if it was not, with {@code group}'s offsets part of it. */
    TransactionMetadata withGroup(final String group, final long nowMs) {
        final Map<String, Map<TopicPartition, CommittedOffset>> groups =
                new LinkedHashMap<>(state == TransactionState.ONGOING ? pendingOffsets : Map.of());
        groups.putIfAbsent(group, Map.of());
        return new TransactionMetadata(
                transactionalId,
                producerId,
                producerEpoch,
                timeoutMs,
                TransactionState.ONGOING,
                state == TransactionState.ONGOING ? partitions : Set.of(),
                groups,
                state == TransactionState.ONGOING ? startTimestampMs : nowMs,
                nowMs);
    }

    /** The open transaction with {@code offsets} of {@code group} committed in it (later ones replace earlier). */
    TransactionMetadata withOffsets(
            final String group, final Map<TopicPartition, CommittedOffset> offsets, final long nowMs) {
        final Map<String, Map<TopicPartition, CommittedOffset>> groups = new LinkedHashMap<>(pendingOffsets);
        final Map<TopicPartition, CommittedOffset> merged = new LinkedHashMap<>(groups.getOrDefault(group, Map.of()));
        merged.putAll(offsets);
        groups.put(group, merged);
        return new TransactionMetadata(
                transactionalId,
                producerId,
                producerEpoch,
                timeoutMs,
                state,
                partitions,
                groups,
                startTimestampMs,
                nowMs);
    }

    /** Whether the producer at {@code epoch} is the current one (not fenced). */
    boolean isCurrent(final long requestProducerId, final short requestEpoch) {
        return producerId == requestProducerId && producerEpoch == requestEpoch;
    }

    /** The next epoch: the current one plus one, or -1 when the epoch space is used up and a new id is needed. */
    short nextEpoch() {
        return producerEpoch >= Short.MAX_VALUE - 1 ? -1 : (short) (producerEpoch + 1);
    }
}
