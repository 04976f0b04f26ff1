package io.isthmus.client.consumer.internals;

import io.isthmus.client.cluster.BrokerNode;
import io.isthmus.client.consumer.ConsumerConfig;
import io.isthmus.client.consumer.internals.SubscriptionState.PartitionState;
import io.isthmus.client.network.LeasedBuffer;
import io.isthmus.client.network.OneSidedReader;
import io.isthmus.client.record.AbortedTransactionList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;

/**
 * What the fetchers of the one-sided transports (RDMA READs, shared-memory loads) share: each {@link #poll()} is one
 * round of the transport over the readers of the fetchable partitions, and the whole batches it hands out become one
 * {@link FetchedData} over the memory they lie in. The transport has walked their headers once already; the slices take
 * the readable end and next offset it found, as they are.
 *
 * <p>With {@code read_committed} the transports hand out nothing at or above a partition's last stable offset, and each
 * slice takes the partition's aborted transactions that reach into it, for the record iterator to skip their batches
 * as it does after a TCP fetch.
 *
 * <p>A partition gets a reader on its first fetch; the reader is re-positioned whenever the partition's fetch position
 * moved without it (a seek, a reset, an assignment change), and whenever its partition's leader changed: the metadata
 * names another, or the broker it read from refused it as no longer the leader (then the metadata is refreshed first). With nothing new to read the fetcher backs off: spin-yield
 * first, then park for longer and longer, up to 10 ms (a round costs the broker nothing, but costs this core).
 *
 * @param <R> the transport's reader of one partition
 */
abstract class OneSidedFetcher<R extends OneSidedReader> implements Fetcher {
    private static final long IDLE_PARK_NANOS = 10_000_000L;
    /** Kafka's default retry.backoff.ms. */
    private static final long LEADER_LOOKUP_BACKOFF_NANOS = 100_000_000L;

    protected final ConsumerConfig config;
    private final SubscriptionState subscriptions;
    private final ConsumerMetadata metadata;
    private final FetchedDataPool pool;
    private final Map<PartitionState, R> readers = new HashMap<>();
    /**
     * Readers whose leader may have moved (see {@link OneSidedReader#leaderLost()}), with when they may be sought again:
     * each waits for the metadata it asked for and for {@link #LEADER_LOOKUP_BACKOFF_NANOS}, so that a leader still
     * named while it is down, or one not yet serving its new epoch, costs a lookup every 100 ms, not every round.
     */
    private final Map<R, Long> awaitingLeader = new HashMap<>();

    private R[] polled;
    /** The data the current round's batches go into; null between rounds. */
    private FetchedData filling;

    private int idleRounds;

    OneSidedFetcher(
            final ConsumerConfig config,
            final SubscriptionState subscriptions,
            final ConsumerMetadata metadata,
            final FetchedDataPool pool) {
        this.config = config;
        this.subscriptions = subscriptions;
        this.metadata = metadata;
        this.pool = pool;
        this.polled = newReaders(0);
    }

    /** A new reader of {@code topic}-{@code partition} from the transport. */
    protected abstract R newReader(String topic, int partition);

    protected abstract R[] newReaders(int length);

    /**
     * One round of the transport over {@code count} readers, its batches handed to {@link #onBatches}; returns the
     * memory they lie in, to release with the data, or null if there were none.
     */
    protected abstract LeasedBuffer pollTransport(R[] readers, int count);

    /** The partition is no longer read: the transport lets go of what the reader holds. */
    protected abstract void removeReader(R reader);

    /** Closes the transport. */
    protected abstract void closeTransport();

    /**
     * The reader's copy of its partition's aborted transactions, as a Kafka broker lists them for a fetch of [{@code
     * fetchOffset}, {@code nextOffset}): those whose ABORT marker is at or after the fetch offset and whose first offset
     * is below the end. A transaction whose marker lies before the slice must not be listed: its producer would join
     * the aborted set with no marker left to take it out, and that producer's later, committed batches would be lost.
     */
    static void addAbortedTransactions(
            final AbortedTransactionList aborted,
            final FetchedSlice slice,
            final long fetchOffset,
            final long nextOffset) {
        for (int i = 0; i < aborted.count(); i++) {
            if (aborted.lastOffset(i) >= fetchOffset && aborted.firstOffset(i) < nextOffset) {
                slice.addAbortedTransaction(aborted.producerId(i), aborted.firstOffset(i));
            }
        }
    }

    @Override
    public final FetchedData poll() {
        final int count = positionReaders();
        if (count == 0) {
            return null;
        }
        // Partitions found out of range in the last round, before anything is handed out, so a failure with
        // auto.offset.reset=none never drops batches of other partitions already taken past.
        resetOutOfRange(count, true);
        final FetchedData data = pool.acquire();
        final LeasedBuffer buffer;
        filling = data;
        try {
            buffer = pollTransport(polled, count);
            if (buffer != null) {
                data.lease(buffer);
            }
            resetOutOfRange(count, buffer == null || data.isEmpty());
            for (int i = 0; i < count; i++) {
                ((PartitionState) polled[i].attachment()).highWatermark(polled[i].highWatermark());
            }
        } catch (final RuntimeException e) {
            data.release();
            throw e;
        } finally {
            filling = null;
            Arrays.fill(polled, 0, count, null);
        }
        if (buffer == null || data.isEmpty()) {
            data.release();
            return null;
        }
        idleRounds = 0;
        return data;
    }

    /** Gathers the readers of the fetchable partitions, seeking those whose partition moved; returns how many. */
    private int positionReaders() {
        final PartitionState[] partitions = subscriptions.partitions();
        if (polled.length < partitions.length) {
            polled = newReaders(partitions.length);
        }
        int count = 0;
        for (final PartitionState partition : partitions) {
            if (!partition.fetchable()) {
                continue;
            }
            R reader = readers.get(partition);
            if (reader == null) {
                reader = newReader(partition.topic(), partition.partition());
                reader.attach(partition);
                readers.put(partition, reader);
            }
            if (reader.leaderLost() && !awaitingLeader.containsKey(reader)) {
                // Its broker no longer leads the partition, or is out of reach: with other brokers about, ask which
                // leads it now, and seek there once the answer is in; a single broker's reader asks it again.
                awaitingLeader.put(reader, System.nanoTime() + LEADER_LOOKUP_BACKOFF_NANOS);
                if (metadata.knowsOtherBrokers()) {
                    metadata.requestUpdate();
                }
            }
            final Long seekAfter = awaitingLeader.get(reader);
            if (seekAfter != null && (metadata.updateRequested() || System.nanoTime() - seekAfter < 0)) {
                continue;
            }
            final boolean leaderSought = awaitingLeader.remove(reader) != null;
            final BrokerNode leader = metadata.leader(partition);
            if (leaderSought
                    || reader.nextOffset() != partition.fetchPosition()
                    || (leader != null && !leader.address().equals(reader.broker()))) {
                // Its leader was sought, it moved without the reader, or the metadata names another leader now.
                if (leader == null) {
                    awaitingLeader.put(reader, System.nanoTime() + LEADER_LOOKUP_BACKOFF_NANOS);
                    metadata.requestUpdate();
                    continue;
                }
                reader.seek(partition.fetchPosition(), leader.address());
            }
            polled[count++] = reader;
        }
        return count;
    }

    /**
     * Whole batches of a reader's partition, in {@code [start, end)} of the memory the round returns: a slice, trusting
     * the walk the transport made over their headers. The transports' batch sinks call this.
     */
    protected final void onBatches(
            final R reader, final long start, final long end, final long fetchOffset, final long nextOffset) {
        final PartitionState partition = (PartitionState) reader.attachment();
        final FetchedSlice slice = filling.addSlice(partition, start, end, fetchOffset, nextOffset);
        if (config.readCommitted()) {
            addAbortedTransactions(reader.abortedTransactions(), slice, fetchOffset, nextOffset);
        }
        subscriptions.advanceFetchPosition(partition, nextOffset);
    }

    /**
     * Partitions whose offset the broker no longer has: reset, or with {@code auto.offset.reset=none} fail, when {@code
     * mayFail} (nothing was handed out this round); otherwise the reader stays out of range until the next round.
     */
    private void resetOutOfRange(final int count, final boolean mayFail) {
        for (int i = 0; i < count; i++) {
            final R reader = polled[i];
            if (!reader.outOfRange()) {
                continue;
            }
            final PartitionState partition = (PartitionState) reader.attachment();
            if (config.autoOffsetReset() == ConsumerConfig.OffsetReset.NONE) {
                if (!mayFail) {
                    continue;
                }
                throw new OffsetOutOfRangeException(
                        transport().configName() + " consume offset out of range: partition="
                                + partition.topicPartition() + ", offset=" + reader.nextOffset());
            }
            subscriptions.requestPositionReset(partition);
            readers.remove(partition);
            awaitingLeader.remove(reader);
            removeReader(reader);
        }
    }

    @Override
    public final boolean awaitData(final long deadlineNanos) {
        final long remaining = deadlineNanos - System.nanoTime();
        if (remaining <= 0) {
            return false;
        }
        idleRounds = Math.min(idleRounds + 1, 1 << 20);
        if (idleRounds > 256) {
            LockSupport.parkNanos(this, Math.min(remaining, Math.min(IDLE_PARK_NANOS, 1_000L * idleRounds)));
        } else {
            Thread.yield();
        }
        return true;
    }

    @Override
    public final void discardBuffered() {
        // Every round's data goes straight to the application: nothing is buffered here.
    }

    @Override
    public final void unassigned(final PartitionState partition) {
        final R reader = readers.remove(partition);
        if (reader != null) {
            awaitingLeader.remove(reader);
            removeReader(reader);
        }
    }

    @Override
    public final void close() {
        readers.clear();
        awaitingLeader.clear();
        closeTransport();
    }
}
