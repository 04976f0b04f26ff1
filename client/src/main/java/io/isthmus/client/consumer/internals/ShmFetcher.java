package io.isthmus.client.consumer.internals;

import io.isthmus.client.cluster.BrokerNode;
import io.isthmus.client.config.Transport;
import io.isthmus.client.consumer.ConsumerConfig;
import io.isthmus.client.consumer.internals.SubscriptionState.PartitionState;
import io.isthmus.client.network.LeasedBuffer;
import io.isthmus.client.shm.ShmConsumerTransport;
import io.isthmus.client.shm.ShmPartitionReader;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;

/**
 * Fetches by reading the leaders' log segments in place through shared memory ({@link ShmConsumerTransport}): each
 * {@link #poll()} is one round of it (access where needed, slot loads, the new whole batches of one partition), and
 * those batches become one {@link FetchedData} over the segment's read-only mapping, which it keeps mapped until the
 * data is released. The transport walked their headers once; the slice takes the readable end and next offset it found.
 *
 * <p>A partition gets a {@link ShmPartitionReader} on its first fetch; the reader is re-positioned whenever the
 * partition's fetch position moved without it (a seek, a reset, an assignment change). With nothing new to read the
 * fetcher backs off as the RDMA fetcher does: spin-yield first, then park for longer and longer, up to 10 ms, so an idle
 * consumer costs a few loads now and then, and the broker nothing.
 *
 * <p>{@code read_committed} is not served over shared memory yet: the consumer never picks this fetcher for it.
 */
public final class ShmFetcher implements Fetcher {
    private static final long IDLE_PARK_NANOS = 10_000_000L;

    private final ShmConsumerTransport transport;
    private final ConsumerConfig config;
    private final SubscriptionState subscriptions;
    private final ConsumerMetadata metadata;
    private final FetchedDataPool pool;
    private final Map<PartitionState, ShmPartitionReader> readers = new HashMap<>();
    private final ShmConsumerTransport.BatchSink sink = this::onBatches;
    private ShmPartitionReader[] polled = new ShmPartitionReader[0];
    /** The data the current round's batches go into; null between rounds. */
    private FetchedData filling;

    private int idleRounds;

    public ShmFetcher(
            final ShmConsumerTransport transport,
            final ConsumerConfig config,
            final SubscriptionState subscriptions,
            final ConsumerMetadata metadata,
            final FetchedDataPool pool) {
        if (config.readCommitted()) {
            throw new IllegalArgumentException(
                    "transport=shm does not serve isolation.level=read_committed yet: use tcp, rdma or auto");
        }
        this.transport = transport;
        this.config = config;
        this.subscriptions = subscriptions;
        this.metadata = metadata;
        this.pool = pool;
    }

    @Override
    public Transport transport() {
        return Transport.SHM;
    }

    /** The shared-memory transport, for its counters. */
    public ShmConsumerTransport shmTransport() {
        return transport;
    }

    @Override
    public FetchedData poll() {
        final int count = positionReaders();
        if (count == 0) {
            return null;
        }
        final FetchedData data = pool.acquire();
        final LeasedBuffer mapping;
        filling = data;
        try {
            mapping = transport.poll(polled, count, sink);
            if (mapping != null) {
                data.lease(mapping);
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
        if (mapping == null || data.isEmpty()) {
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
            polled = new ShmPartitionReader[partitions.length];
        }
        int count = 0;
        for (final PartitionState partition : partitions) {
            if (!partition.fetchable()) {
                continue;
            }
            ShmPartitionReader reader = readers.get(partition);
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

    private void onBatches(
            final ShmPartitionReader reader,
            final long start,
            final long end,
            final long fetchOffset,
            final long nextOffset) {
        final PartitionState partition = (PartitionState) reader.attachment();
        filling.addSlice(partition, start, end, fetchOffset, nextOffset);
        subscriptions.advanceFetchPosition(partition, nextOffset);
    }

    /** Partitions whose offset the broker no longer has: reset (or fail with {@code auto.offset.reset=none}). */
    private void resetOutOfRange(final int count) {
        for (int i = 0; i < count; i++) {
            final ShmPartitionReader reader = polled[i];
            if (!reader.outOfRange()) {
                continue;
            }
            final PartitionState partition = (PartitionState) reader.attachment();
            if (config.autoOffsetReset() == ConsumerConfig.OffsetReset.NONE) {
                throw new OffsetOutOfRangeException("shared-memory consume offset out of range: partition="
                        + partition.topicPartition() + ", offset=" + reader.nextOffset());
            }
            subscriptions.requestPositionReset(partition);
            transport.remove(reader);
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
        final ShmPartitionReader reader = readers.remove(partition);
        if (reader != null) {
            transport.remove(reader);
        }
    }

    @Override
    public void close() {
        readers.clear();
        transport.close();
    }
}
