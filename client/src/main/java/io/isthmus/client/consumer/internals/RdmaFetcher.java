package io.isthmus.client.consumer.internals;

import io.isthmus.client.cluster.BrokerNode;
import io.isthmus.client.config.Transport;
import io.isthmus.client.consumer.ConsumerConfig;
import io.isthmus.client.consumer.internals.SubscriptionState.PartitionState;
import io.isthmus.client.rdma.RdmaConsumerTransport;
import io.isthmus.client.rdma.RdmaPartitionReader;
import io.isthmus.client.rdma.RdmaReadBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;

/**
 * Fetches with one-sided RDMA READs of the leaders' log segments, through {@link RdmaConsumerTransport}: each {@link
 * #poll()} is one round of it (access where needed, one slot READ per broker, segment READs of the new bytes), and the
 * whole batches it hands out become one {@link FetchedData} over the READ target buffer. The transport has walked
 * their headers once already; the slices take the readable end and next offset it found, as they are.
 *
 * <p>With {@code read_committed} the transport hands out nothing at or above a partition's last stable offset, and each
 * slice takes the partition's aborted transactions that reach into it, for the record iterator to skip their batches
 * as it does after a TCP fetch.
 *
 * <p>A partition gets an {@link RdmaPartitionReader} on its first fetch; the reader is re-positioned whenever the
 * partition's fetch position moved without it (a seek, a reset, an assignment change). With nothing new to read the
 * fetcher backs off: spin-yield first, then park for longer and longer, up to 10 ms (slot READs
 * cost the broker nothing, but cost this core).
 */
public final class RdmaFetcher implements Fetcher {
    private static final long IDLE_PARK_NANOS = 10_000_000L;

    private final RdmaConsumerTransport transport;
    private final ConsumerConfig config;
    private final SubscriptionState subscriptions;
    private final ConsumerMetadata metadata;
    private final FetchedDataPool pool;
    private final Map<PartitionState, RdmaPartitionReader> readers = new HashMap<>();
    private final RdmaConsumerTransport.BatchSink sink = this::onBatches;
    private RdmaPartitionReader[] polled = new RdmaPartitionReader[0];
    /** The data the current round's batches go into; null between rounds. */
    private FetchedData filling;

    private int idleRounds;

    public RdmaFetcher(
            final RdmaConsumerTransport transport,
            final ConsumerConfig config,
            final SubscriptionState subscriptions,
            final ConsumerMetadata metadata,
            final FetchedDataPool pool) {
        this.transport = transport;
        this.config = config;
        this.subscriptions = subscriptions;
        this.metadata = metadata;
        this.pool = pool;
    }

    @Override
    public Transport transport() {
        return Transport.RDMA;
    }

    /** The RDMA transport, for its counters. */
    public RdmaConsumerTransport rdmaTransport() {
        return transport;
    }

    @Override
    public FetchedData poll() {
        final int count = positionReaders();
        if (count == 0) {
            return null;
        }
        final FetchedData data = pool.acquire();
        final RdmaReadBuffer buffer;
        filling = data;
        try {
            buffer = transport.poll(polled, count, sink);
            if (buffer != null) {
                data.lease(buffer);
            }
            resetOutOfRange(count);
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
            polled = new RdmaPartitionReader[partitions.length];
        }
        int count = 0;
        for (final PartitionState partition : partitions) {
            if (!partition.fetchable()) {
                continue;
            }
            RdmaPartitionReader reader = readers.get(partition);
            if (reader == null) {
                reader = transport.reader(partition.topic(), partition.partition());
                reader.attach(partition);
                readers.put(partition, reader);
            }
            if (reader.nextOffset() != partition.fetchPosition()) {
                final BrokerNode leader = metadata.leader(partition);
                if (leader == null) {
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
     * Whole batches of a reader's partition: a slice, trusting the walk the transport made over their headers; with
     * {@code read_committed}, with the partition's aborted transactions that reach into it.
     */
    private void onBatches(
            final RdmaPartitionReader reader,
            final long start,
            final long end,
            final long fetchOffset,
            final long nextOffset) {
        final PartitionState partition = (PartitionState) reader.attachment();
        final FetchedSlice slice = filling.addSlice(partition, start, end, fetchOffset, nextOffset);
        if (config.readCommitted()) {
            addAbortedTransactions(reader, slice, fetchOffset, nextOffset);
        }
        subscriptions.advanceFetchPosition(partition, nextOffset);
    }

    /**
     * The reader's copy of its partition's aborted transactions, as a Kafka broker lists them for a fetch of [{@code
     * fetchOffset}, {@code nextOffset}): those whose ABORT marker is at or after the fetch offset and whose first offset
     * is below the end. A transaction whose marker lies before the slice must not be listed: its producer would join
     * the aborted set with no marker left to take it out, and that producer's later, committed batches would be lost.
     */
    static void addAbortedTransactions(
            final RdmaPartitionReader reader, final FetchedSlice slice, final long fetchOffset, final long nextOffset) {
        for (int i = 0; i < reader.abortedCount(); i++) {
            if (reader.abortedLastOffset(i) >= fetchOffset && reader.abortedFirstOffset(i) < nextOffset) {
                slice.addAbortedTransaction(reader.abortedProducerId(i), reader.abortedFirstOffset(i));
            }
        }
    }

    /** Partitions whose offset the broker no longer has: reset (or fail with {@code auto.offset.reset=none}). */
    private void resetOutOfRange(final int count) {
        for (int i = 0; i < count; i++) {
            final RdmaPartitionReader reader = polled[i];
            if (!reader.outOfRange()) {
                continue;
            }
            final PartitionState partition = (PartitionState) reader.attachment();
            if (config.autoOffsetReset() == ConsumerConfig.OffsetReset.NONE) {
                throw new OffsetOutOfRangeException("RDMA consume offset out of range: partition="
                        + partition.topicPartition() + ", offset=" + reader.nextOffset());
            }
            subscriptions.requestPositionReset(partition);
            readers.remove(partition);
        }
    }

    @Override
    public boolean awaitData(final long deadlineNanos) {
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
    public void discardBuffered() {
        // Every round's data goes straight to the application: nothing is buffered here.
    }

    @Override
    public void unassigned(final PartitionState partition) {
        final RdmaPartitionReader reader = readers.remove(partition);
        if (reader != null) {
            transport.remove(reader);
        }
    }

    @Override
    public void close() {
        transport.close();
    }
}
