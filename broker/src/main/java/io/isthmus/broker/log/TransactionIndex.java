package io.isthmus.broker.log;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a partition log knows about transactions: the ones still open (their first offsets bound the last stable
 * offset) and the aborted ones (Kafka's {@code .txnindex}: a {@code read_committed} fetch lists those overlapping what
 * it returns, so the consumer can drop their batches).
 *
 * <p>Both are derived from the log alone, a transactional batch opening a producer's transaction and its marker
 * closing it, so they are rebuilt by the scan that reopens the log and cannot disagree with it after a crash: the
 * index is held in memory rather than in a second file. Updated by the log under its append lock, before the log end
 * offset that covers the update is published; read by fetches on any thread.
 */
final class TransactionIndex {
    /** First offset of each open transaction, by producer id (append lock). */
    private final Map<Long, Long> openByProducer = new HashMap<>();
    /** Open transactions by first offset, to find the smallest (append lock). */
    private final TreeMap<Long, Long> openByFirstOffset = new TreeMap<>();
    /** Aborted transactions in marker order, so by last offset (guarded by itself). */
    private final List<AbortedTransaction> aborted = new ArrayList<>();
    /** First offset of the oldest open transaction, {@link Long#MAX_VALUE} when none is open. */
    private volatile long firstUnstableOffset = Long.MAX_VALUE;

    /** A transactional data batch at {@code baseOffset}: opens the producer's transaction if none is open. */
    void onTransactionalBatch(final long producerId, final long baseOffset) {
        if (openByProducer.putIfAbsent(producerId, baseOffset) == null) {
            openByFirstOffset.put(baseOffset, producerId);
            firstUnstableOffset = openByFirstOffset.firstKey();
        }
    }

    /**
     * A marker at {@code markerOffset} ends the producer's open transaction (a marker for a producer with none open,
     * such as a coordinator completing an empty or already-ended transaction again, changes nothing).
     */
    void onMarker(final long producerId, final long markerOffset, final boolean abort) {
        final Long firstOffset = openByProducer.remove(producerId);
        if (firstOffset == null) {
            return;
        }
        openByFirstOffset.remove(firstOffset);
        firstUnstableOffset = openByFirstOffset.isEmpty() ? Long.MAX_VALUE : openByFirstOffset.firstKey();
        if (abort) {
            final long stable = Math.min(firstUnstableOffset, markerOffset + 1);
            synchronized (aborted) {
                aborted.add(new AbortedTransaction(producerId, firstOffset, markerOffset, stable));
            }
        }
    }

    /** Forgets every transaction (the log was truncated and is read again). */
    void clear() {
        openByProducer.clear();
        openByFirstOffset.clear();
        firstUnstableOffset = Long.MAX_VALUE;
        synchronized (aborted) {
            aborted.clear();
        }
    }

    /** Whether the producer has a transaction open in this partition. */
    boolean isOpen(final long producerId) {
        return openByProducer.containsKey(producerId);
    }

    int openCount() {
        return openByProducer.size();
    }

    /** The first offset of the oldest open transaction, or {@link Long#MAX_VALUE}; read it after the log end offset. */
    long firstUnstableOffset() {
        return firstUnstableOffset;
    }

    /**
     * The aborted transactions with data in {@code [fetchOffset, upperBoundOffset)}, in marker order (Kafka's
     * {@code collectAbortedTxns}): the scan stops at the first whose last stable offset reaches the bound, since any
     * later one began at or after that offset.
     */
    List<AbortedTransaction> collect(final long fetchOffset, final long upperBoundOffset) {
        synchronized (aborted) {
            List<AbortedTransaction> found = List.of();
            for (int i = firstEndingAtOrAfter(fetchOffset); i < aborted.size(); i++) {
                final AbortedTransaction transaction = aborted.get(i);
                if (transaction.firstOffset() < upperBoundOffset) {
                    if (found.isEmpty()) {
                        found = new ArrayList<>();
                    }
                    found.add(transaction);
                }
                if (transaction.lastStableOffset() >= upperBoundOffset) {
                    break;
                }
            }
            return found;
        }
    }

    /** Forgets aborted transactions that ended before the log start offset (retention deleted them). */
    void retainFrom(final long logStartOffset) {
        synchronized (aborted) {
            final int keepFrom = firstEndingAtOrAfter(logStartOffset);
            if (keepFrom > 0) {
                aborted.subList(0, keepFrom).clear();
            }
        }
    }

    int abortedCount() {
        synchronized (aborted) {
            return aborted.size();
        }
    }

    /** Index of the first aborted transaction whose marker is at or after {@code offset} (caller holds the lock). */
    private int firstEndingAtOrAfter(final long offset) {
        int low = 0;
        int high = aborted.size();
        while (low < high) {
            final int middle = (low + high) >>> 1;
            if (aborted.get(middle).lastOffset() < offset) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return low;
    }
}
