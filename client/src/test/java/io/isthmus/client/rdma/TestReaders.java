package io.isthmus.client.rdma;

/** RDMA partition readers in the state a transport leaves them in, for tests outside this package. */
public final class TestReaders {
    private TestReaders() {}

    /**
     * A reader of {@code topic}-{@code partition} holding these aborted transactions, each {producer id, first offset,
     * ABORT marker offset}, as copied from the broker's array.
     */
    public static RdmaPartitionReader withAborted(final String topic, final int partition, final long[]... aborted) {
        final RdmaPartitionReader reader = new RdmaPartitionReader(topic, partition);
        for (final long[] entry : aborted) {
            reader.addAborted(entry[0], entry[1], entry[2]);
        }
        return reader;
    }
}
