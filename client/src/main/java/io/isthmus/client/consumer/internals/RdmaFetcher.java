package io.isthmus.client.consumer.internals;

import io.isthmus.client.config.Transport;
import io.isthmus.client.consumer.ConsumerConfig;
import io.isthmus.client.network.LeasedBuffer;
import io.isthmus.client.rdma.RdmaConsumerTransport;
import io.isthmus.client.rdma.RdmaPartitionReader;

/**
 * Fetches with one-sided RDMA READs of the leaders' log segments, through {@link RdmaConsumerTransport}: each {@link
 * #poll()} is one round of it (access where needed, one slot READ per broker, segment READs of the new bytes), and the
 * whole batches it hands out become one {@link FetchedData} over the READ target buffer (see {@link OneSidedFetcher}).
 */
public final class RdmaFetcher extends OneSidedFetcher<RdmaPartitionReader> {
    private final RdmaConsumerTransport transport;
    private final RdmaConsumerTransport.BatchSink sink = this::onBatches;

    public RdmaFetcher(
            final RdmaConsumerTransport transport,
            final ConsumerConfig config,
            final SubscriptionState subscriptions,
            final ConsumerMetadata metadata,
            final FetchedDataPool pool) {
        super(config, subscriptions, metadata, pool);
        this.transport = transport;
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
    protected RdmaPartitionReader newReader(final String topic, final int partition) {
        return transport.reader(topic, partition);
    }

    @Override
    protected RdmaPartitionReader[] newReaders(final int length) {
        return new RdmaPartitionReader[length];
    }

    @Override
    protected LeasedBuffer pollTransport(final RdmaPartitionReader[] readers, final int count) {
        return transport.poll(readers, count, sink);
    }

    @Override
    protected void removeReader(final RdmaPartitionReader reader) {
        transport.remove(reader);
    }

    @Override
    protected void closeTransport() {
        transport.close();
    }
}
