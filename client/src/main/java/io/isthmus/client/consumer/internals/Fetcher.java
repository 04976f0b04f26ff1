package io.isthmus.client.consumer.internals;

import io.isthmus.client.config.Transport;
import io.isthmus.client.consumer.internals.SubscriptionState.PartitionState;

/**
 * Brings the records of the assigned partitions from their leaders into local memory and hands them over as {@link
 * FetchedData}, in place: over TCP ({@link TcpFetcher}), over RDMA READs ({@link RdmaFetcher}), later from shared
 * memory. Every implementation walks each fetched batch's headers once, to find the readable end and the next offset
 * of every slice it produces, and moves fetch positions only through {@link SubscriptionState}.
 *
 * <p>The consumer drives it in rounds, so that group work, metadata and positions are taken care of between them:
 *
 * <pre>{@code
 * while (true) {
 *     // wakeup, group, metadata, positions
 *     FetchedData data = fetcher.poll();
 *     if (data != null) return data;
 *     if (!fetcher.awaitData(deadline)) return null;
 * }
 * }</pre>
 *
 * <p>Owned by the consumer's polling thread.
 */
public interface Fetcher extends AutoCloseable {
    /** The transport the records travel over. */
    Transport transport();

    /**
     * Data ready for the application, if any, having started the next fetches first (pipelining: they travel while
     * the application works). Never waits for the network.
     *
     * @return data whose release is the caller's, or null
     */
    FetchedData poll();

    /**
     * Waits for data to arrive or until {@code deadlineNanos} ({@link System#nanoTime()} based), in the
     * transport's way (blocking on a socket, backing off from READs).
     *
     * @return false when the caller should stop waiting: the deadline passed and nothing is ready
     */
    boolean awaitData(long deadlineNanos);

    /** Drops data fetched but not handed out (its positions are rewound by {@link SubscriptionState}). */
    void discardBuffered();

    /** The partition is no longer assigned: lets go of whatever is held for it. */
    void unassigned(PartitionState partition);

    @Override
    void close();
}
