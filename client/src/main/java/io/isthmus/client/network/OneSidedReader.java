package io.isthmus.client.network;

import io.isthmus.client.record.AbortedTransactionList;
import java.net.InetSocketAddress;

/**
 * What a consumer's fetcher asks of a one-sided transport's reader of one partition (an RDMA reader, a shared-memory
 * reader): where it reads from, what it last saw of the partition, and whether the broker no longer has its offset. The
 * transports keep the rest (access, slots, positions in the segment) to themselves.
 */
public interface OneSidedReader {
    /** The consumer's own state for this partition, so the fetcher finds it at once when batches arrive. */
    void attach(Object attachment);

    Object attachment();

    /** The offset after the data handed out so far. */
    long nextOffset();

    /** The partition's high watermark as the reader last saw it; -1 before. */
    long highWatermark();

    /** Whether the broker answered that the reader's offset is not in the log. */
    boolean outOfRange();

    /**
     * Whether the partition's leader may have moved: the broker read from answered that it does not lead the partition
     * (any more), or could not be reached. The reader asks nothing until it is {@link #seek sought} again, at the leader
     * the metadata names then.
     */
    boolean leaderLost();

    /** The broker the reader reads from, the partition's leader when it was last sought; null before. */
    InetSocketAddress broker();

    /** Reads from {@code offset} on, from the partition leader at {@code leader}: access is asked for again. */
    void seek(long offset, InetSocketAddress leader);

    /**
     * {@code read_committed}: the partition's aborted transactions whose ABORT markers lie at or after the data not
     * yet handed out, in marker order (empty for {@code read_uncommitted}).
     */
    AbortedTransactionList abortedTransactions();
}
