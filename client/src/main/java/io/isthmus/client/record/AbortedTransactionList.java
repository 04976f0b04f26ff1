package io.isthmus.client.record;

import java.util.Arrays;

/**
 * The aborted transactions a one-sided {@code read_committed} reader copied from its partition's array on the broker
 * (RDMA READs, shared-memory loads), in marker order, minus those whose markers it has passed: what it lists with each
 * slice it hands out, as a Kafka broker lists them with a fetch response. Grows by doubling; allocates nothing once
 * large enough.
 */
public final class AbortedTransactionList {
    private long[] producerIds = new long[8];
    private long[] firstOffsets = new long[8];
    private long[] lastOffsets = new long[8];
    private int count;

    /** Transactions held, in marker order. */
    public int count() {
        return count;
    }

    public long producerId(final int index) {
        return producerIds[index];
    }

    public long firstOffset(final int index) {
        return firstOffsets[index];
    }

    /** The offset of the transaction's ABORT marker. */
    public long lastOffset(final int index) {
        return lastOffsets[index];
    }

    /** Adds an entry copied from the broker's array (markers come in offset order). */
    public void add(final long producerId, final long firstOffset, final long lastOffset) {
        if (count == producerIds.length) {
            producerIds = Arrays.copyOf(producerIds, count * 2);
            firstOffsets = Arrays.copyOf(firstOffsets, count * 2);
            lastOffsets = Arrays.copyOf(lastOffsets, count * 2);
        }
        producerIds[count] = producerId;
        firstOffsets[count] = firstOffset;
        lastOffsets[count] = lastOffset;
        count++;
    }

    /** Drops the transactions whose markers lie below {@code offset}: no batch still to come belongs to them. */
    public void dropBefore(final long offset) {
        int kept = 0;
        for (int i = 0; i < count; i++) {
            if (lastOffsets[i] >= offset) {
                producerIds[kept] = producerIds[i];
                firstOffsets[kept] = firstOffsets[i];
                lastOffsets[kept] = lastOffsets[i];
                kept++;
            }
        }
        count = kept;
    }

    /** Forgets every entry (a seek back may need entries dropped as passed: they are copied afresh). */
    public void clear() {
        count = 0;
    }
}
