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
 *
 * <p>With {@code read_committed} the transport hands out nothing at or above a partition's last stable offset, and each
 * slice takes the partition's aborted transactions that reach into it, for the record iterator to skip their batches
 * as it does after a TCP fetch.
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

    @Override
    protected void describeSlice(
            final RdmaPartitionReader reader, final FetchedSlice slice, final long fetchOffset, final long nextOffset) {
        if (config.readCommitted()) {
            addAbortedTransactions(reader, slice, fetchOffset, nextOffset);
        }
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
}
