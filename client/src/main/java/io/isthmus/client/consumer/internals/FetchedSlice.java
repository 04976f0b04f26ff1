package io.isthmus.client.consumer.internals;

import io.isthmus.client.consumer.internals.SubscriptionState.PartitionState;

/**
 * Where one partition's whole record batches lie in a {@link FetchedData}'s buffer, and what the fetcher learned while
 * it walked their headers, once: the readable end (the end of the last whole batch; a truncated tail after it is not
 * part of the slice) and the offset after them. The record iterator trusts both and never walks the headers again.
 *
 * <p>With {@code read_committed} it also carries the partition's aborted transactions from the fetch response, which
 * the record iterator needs to skip their batches ({@link AbortedBatchFilter}).
 *
 * <p>A flyweight owned and reused by its {@link FetchedData}, with its aborted-transaction list.
 */
public final class FetchedSlice {
    private PartitionState partition;
    private int generation;
    private long start;
    private long readableEnd;
    private long fetchOffset;
    private long nextOffset;
    private final AbortedTransactions abortedTransactions = new AbortedTransactions();

    void set(
            final PartitionState partition,
            final long start,
            final long readableEnd,
            final long fetchOffset,
            final long nextOffset) {
        if (readableEnd <= start) {
            throw new IllegalArgumentException(
                    "a fetched slice needs a whole batch: start=" + start + ", readableEnd=" + readableEnd);
        }
        this.partition = partition;
        this.generation = partition.generation();
        this.start = start;
        this.readableEnd = readableEnd;
        this.fetchOffset = fetchOffset;
        this.nextOffset = nextOffset;
        this.abortedTransactions.clear();
    }

    void clear() {
        partition = null;
        abortedTransactions.clear();
    }

    /** Records an aborted transaction the fetch response listed for this partition ({@code read_committed}). */
    public void addAbortedTransaction(final long producerId, final long firstOffset) {
        abortedTransactions.add(producerId, firstOffset);
    }

    /** The partition's aborted transactions in the fetched range, by first offset (empty with read_uncommitted). */
    public AbortedTransactions abortedTransactions() {
        return abortedTransactions;
    }

    public PartitionState partition() {
        return partition;
    }

    /** The partition's generation when fetched: a seek or reset since makes the slice stale. */
    public int generation() {
        return generation;
    }

    /** Whether no seek or reset happened since the fetch: stale slices are skipped. */
    public boolean isCurrent() {
        return partition.generation() == generation;
    }

    /** Where the first batch starts in the buffer. */
    public long start() {
        return start;
    }

    /** Where the last whole batch ends in the buffer. */
    public long readableEnd() {
        return readableEnd;
    }

    /** The offset the partition was fetched from; records below it (the first batch may start earlier) are skipped. */
    public long fetchOffset() {
        return fetchOffset;
    }

    /** The offset after the last whole batch. */
    public long nextOffset() {
        return nextOffset;
    }

    @Override
    public String toString() {
        return "FetchedSlice{" + (partition == null ? "released" : partition.topicPartition()) + ", start=" + start
                + ", readableEnd=" + readableEnd + ", fetchOffset=" + fetchOffset + ", nextOffset=" + nextOffset + '}';
    }
}
