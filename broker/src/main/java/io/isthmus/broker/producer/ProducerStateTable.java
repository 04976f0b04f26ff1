package io.isthmus.broker.producer;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.protocol.Errors;

/**
 * Idempotent-producer state of one partition: per producer id, its epoch and its last {@value #CACHED_BATCHES}
 * appended batches, which covers what a producer may retry: kafka-clients keeps at most five requests in flight with
 * idempotence on, an RDMA producer at most {@code rdma.produce.credits} writes (bounded by this number), any of which a
 * lost connection can leave committed but unacknowledged.
 *
 * <p>A retried batch that was already appended is recognised by its sequence range and answered with its
 * original offsets instead of being appended twice. Guarded by the owning partition's append lock.
 */
public final class ProducerStateTable {
    public static final int CACHED_BATCHES = 64;
    /** The offsets of a batch accepted but not committed yet; see {@link #resolve}. */
    public static final long PENDING = -2;

    private final Map<Long, ProducerEntry> entries = new HashMap<>();

    /** The verdict on a batch about to be appended. */
    public sealed interface Verdict {
        /** Append it. */
        record Append() implements Verdict {}

        /** Already appended: answer with these offsets, append nothing. */
        record Duplicate(long firstOffset, long lastOffset) implements Verdict {}

        /** Refuse it with this Kafka error and reason. */
        record Reject(Errors error, String reason) implements Verdict {}
    }

    private static final Verdict APPEND = new Verdict.Append();

    private record AppendedBatch(int firstSequence, int lastSequence, long firstOffset, long lastOffset) {}

    private static final class ProducerEntry {
        short epoch;
        /** The newest coordinator epoch among this producer's markers here; -1 before any. */
        int coordinatorEpoch = -1;

        final ArrayDeque<AppendedBatch> batches = new ArrayDeque<>(CACHED_BATCHES);
    }

    /** Checks a batch of an idempotent producer ({@code producerId >= 0}) against what was appended before. */
    public Verdict check(final long producerId, final short epoch, final int firstSequence, final int lastSequence) {
        final ProducerEntry entry = entries.get(producerId);
        if (entry == null) {
            // Unknown producer (new, or its state predates the log start): accept what it sends first.
            return APPEND;
        }
        final Verdict epochVerdict = checkEpoch(producerId, epoch);
        if (epochVerdict != APPEND) {
            return epochVerdict;
        }
        if (epoch > entry.epoch) {
            return firstSequence == 0
                    ? APPEND
                    : new Verdict.Reject(
                            Errors.OUT_OF_ORDER_SEQUENCE_NUMBER,
                            "a new producer epoch must start at sequence 0: producerId=" + producerId + ", epoch="
                                    + epoch + ", sequence=" + firstSequence);
        }
        for (final AppendedBatch batch : entry.batches) {
            if (batch.firstSequence() == firstSequence && batch.lastSequence() == lastSequence) {
                return new Verdict.Duplicate(batch.firstOffset(), batch.lastOffset());
            }
        }
        final AppendedBatch last = entry.batches.peekLast();
        if (last != null && firstSequence != nextSequence(last.lastSequence())) {
            return new Verdict.Reject(
                    Errors.OUT_OF_ORDER_SEQUENCE_NUMBER,
                    "sequence gap: producerId=" + producerId + ", epoch=" + epoch + ", expected="
                            + nextSequence(last.lastSequence()) + ", got=" + firstSequence);
        }
        return APPEND;
    }

    /**
     * Checks only the epoch of a batch without sequence numbers (one a coordinator writes for the producer): refused
     * if older than the producer's current epoch.
     */
    public Verdict checkEpoch(final long producerId, final short epoch) {
        final ProducerEntry entry = entries.get(producerId);
        if (entry != null && epoch < entry.epoch) {
            return new Verdict.Reject(
                    Errors.INVALID_PRODUCER_EPOCH,
                    "producer epoch is stale: producerId=" + producerId + ", epoch=" + epoch + ", current="
                            + entry.epoch);
        }
        return APPEND;
    }

    /**
     * Records the epoch of a batch without sequence numbers that was let in (one a coordinator writes for the
     * producer): a newer epoch becomes the producer's, so its older batches and markers are refused from now on, as
     * after any batch of that epoch. No batch is cached: such batches are never retried as duplicates.
     */
    public void epochSeen(final long producerId, final short epoch) {
        final ProducerEntry entry = entries.computeIfAbsent(producerId, id -> {
            final ProducerEntry fresh = new ProducerEntry();
            fresh.epoch = epoch;
            return fresh;
        });
        if (epoch > entry.epoch) {
            entry.epoch = epoch;
            entry.batches.clear();
        }
    }

    /**
     * Checks a transaction marker of {@code producerId} at {@code epoch} from a coordinator of {@code
     * coordinatorEpoch}: one older than the producer's current epoch, or from a coordinator older than one whose
     * marker this partition holds (a coordinator superseded after a failover of its state partition), is refused.
     */
    public Verdict checkMarker(final long producerId, final short epoch, final int coordinatorEpoch) {
        final ProducerEntry entry = entries.get(producerId);
        if (entry != null && epoch < entry.epoch) {
            return new Verdict.Reject(
                    Errors.INVALID_PRODUCER_EPOCH,
                    "transaction marker of a stale producer epoch: producerId=" + producerId + ", epoch=" + epoch
                            + ", current=" + entry.epoch);
        }
        if (entry != null && coordinatorEpoch < entry.coordinatorEpoch) {
            return new Verdict.Reject(
                    Errors.TRANSACTION_COORDINATOR_FENCED,
                    "transaction marker of a superseded coordinator: producerId=" + producerId + ", coordinatorEpoch="
                            + coordinatorEpoch + ", current=" + entry.coordinatorEpoch);
        }
        return APPEND;
    }

    /**
     * Records an appended transaction marker: a marker at a newer epoch (the coordinator aborting a transaction whose
     * producer it fenced) makes that epoch current, so batches of the fenced epoch are refused from now on.
     */
    public void markerAppended(final long producerId, final short epoch, final int coordinatorEpoch) {
        final ProducerEntry entry = entries.computeIfAbsent(producerId, id -> new ProducerEntry());
        entry.coordinatorEpoch = Math.max(entry.coordinatorEpoch, coordinatorEpoch);
        if (epoch > entry.epoch || entry.batches.isEmpty()) {
            entry.epoch = epoch;
            entry.batches.clear();
        }
    }

    /** Forgets every producer (the log was truncated and is read again). */
    public void clear() {
        entries.clear();
    }

    /** Records an appended batch; called for batches appended by clients and for batches found in the log at start. */
    public void appended(
            final long producerId,
            final short epoch,
            final int firstSequence,
            final int lastSequence,
            final long firstOffset,
            final long lastOffset) {
        final ProducerEntry entry = entries.computeIfAbsent(producerId, id -> new ProducerEntry());
        if (epoch != entry.epoch) {
            entry.epoch = epoch;
            entry.batches.clear();
        }
        if (entry.batches.size() == CACHED_BATCHES) {
            entry.batches.pollFirst();
        }
        entry.batches.addLast(new AppendedBatch(firstSequence, lastSequence, firstOffset, lastOffset));
    }

    /**
     * Fills in the offsets of a batch recorded with {@link #PENDING} offsets (shared RDMA produce records a TCP batch
     * when it reserves its place and learns its offsets when it commits, in order).
     */
    public void resolve(
            final long producerId,
            final short epoch,
            final int firstSequence,
            final long firstOffset,
            final long lastOffset) {
        final ProducerEntry entry = entries.get(producerId);
        if (entry == null || entry.epoch != epoch) {
            return;
        }
        final int count = entry.batches.size();
        for (int i = 0; i < count; i++) {
            final AppendedBatch batch = entry.batches.pollFirst();
            entry.batches.addLast(
                    batch.firstSequence() == firstSequence && batch.firstOffset() == PENDING
                            ? new AppendedBatch(batch.firstSequence(), batch.lastSequence(), firstOffset, lastOffset)
                            : batch);
        }
    }

    /**
     * Forgets a batch recorded with {@link #PENDING} offsets that will never commit, and every batch of the producer
     * recorded after it (they were behind it in the same order, so they fail too): its retry is then accepted again.
     */
    public void forgetFrom(final long producerId, final short epoch, final int firstSequence) {
        final ProducerEntry entry = entries.get(producerId);
        if (entry == null || entry.epoch != epoch) {
            return;
        }
        final int count = entry.batches.size();
        boolean forgetting = false;
        for (int i = 0; i < count; i++) {
            final AppendedBatch batch = entry.batches.pollFirst();
            forgetting |= batch.firstSequence() == firstSequence && batch.firstOffset() == PENDING;
            if (!forgetting) {
                entry.batches.addLast(batch);
            }
        }
        if (entry.batches.isEmpty()) {
            entries.remove(producerId);
        }
    }

    public int producerCount() {
        return entries.size();
    }

    /** Sequences wrap from {@link Integer#MAX_VALUE} to 0, as in Kafka. */
    private static int nextSequence(final int sequence) {
        return sequence == Integer.MAX_VALUE ? 0 : sequence + 1;
    }
}
