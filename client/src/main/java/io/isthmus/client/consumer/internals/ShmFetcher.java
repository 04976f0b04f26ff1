package io.isthmus.client.consumer.internals;

import io.isthmus.client.config.Transport;
import io.isthmus.client.consumer.ConsumerConfig;
import io.isthmus.client.network.LeasedBuffer;
import io.isthmus.client.shm.ShmConsumerTransport;
import io.isthmus.client.shm.ShmPartitionReader;

/**
 * Fetches by reading the leaders' log segments in place through shared memory ({@link ShmConsumerTransport}): each
 * {@link #poll()} is one round of it (access where needed, slot loads, the new whole batches of one partition), and
 * those batches become one {@link FetchedData} over the segment's read-only mapping, which stays mapped until the data
 * is released (see {@link OneSidedFetcher}). An idle consumer costs a few loads now and then, and the broker nothing.
 */
public final class ShmFetcher extends OneSidedFetcher<ShmPartitionReader> {
    private final ShmConsumerTransport transport;
    private final ShmConsumerTransport.BatchSink sink = this::onBatches;

    public ShmFetcher(
            final ShmConsumerTransport transport,
            final ConsumerConfig config,
            final SubscriptionState subscriptions,
            final ConsumerMetadata metadata,
            final FetchedDataPool pool) {
        super(config, subscriptions, metadata, pool);
        this.transport = transport;
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
    protected ShmPartitionReader newReader(final String topic, final int partition) {
        return transport.reader(topic, partition);
    }

    @Override
    protected ShmPartitionReader[] newReaders(final int length) {
        return new ShmPartitionReader[length];
    }

    @Override
    protected LeasedBuffer pollTransport(final ShmPartitionReader[] readers, final int count) {
        return transport.poll(readers, count, sink);
    }

    @Override
    protected void removeReader(final ShmPartitionReader reader) {
        transport.remove(reader);
    }

    @Override
    protected void closeTransport() {
        transport.close();
    }
}
