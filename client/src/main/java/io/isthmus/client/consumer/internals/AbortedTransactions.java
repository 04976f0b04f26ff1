package io.isthmus.client.consumer.internals;

import java.util.Arrays;

/**
 * The aborted transactions a {@code read_committed} fetch listed for one partition: the producer id and first offset of
 * each transaction aborted in the fetched range, in order of first offset (kafka-clients keeps them in a priority queue
 * by first offset; a sorted array does the same without a node per entry). Owned and reused by its {@link
 * FetchedSlice}: no allocation per fetch once it has held as many entries as a fetch brings.
 */
public final class AbortedTransactions {
    private long[] producerIds = new long[4];
    private long[] firstOffsets = new long[4];
    private int count;

    void clear() {
        count = 0;
    }

    /** Adds one, keeping the order by first offset (brokers list them in that order, so this is an append). */
    void add(final long producerId, final long firstOffset) {
        if (count == producerIds.length) {
            producerIds = Arrays.copyOf(producerIds, count * 2);
            firstOffsets = Arrays.copyOf(firstOffsets, count * 2);
        }
        int i = count;
        while (i > 0 && firstOffsets[i - 1] > firstOffset) {
            producerIds[i] = producerIds[i - 1];
            firstOffsets[i] = firstOffsets[i - 1];
            i--;
        }
        producerIds[i] = producerId;
        firstOffsets[i] = firstOffset;
        count++;
    }

    public int count() {
        return count;
    }

    public boolean isEmpty() {
        return count == 0;
    }

    /** The producer id of the {@code index}-th aborted transaction by first offset. */
    public long producerId(final int index) {
        return producerIds[index];
    }

    public long firstOffset(final int index) {
        return firstOffsets[index];
    }

    @Override
    public String toString() {
        final StringBuilder s = new StringBuilder("AbortedTransactions[");
        for (int i = 0; i < count; i++) {
            s.append(i == 0 ? "" : ", ")
                    .append("producerId=")
                    .append(producerIds[i])
                    .append("@")
                    .append(firstOffsets[i]);
        }
        return s.append(']').toString();
    }
}
