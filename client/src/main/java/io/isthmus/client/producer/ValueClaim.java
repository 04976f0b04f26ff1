package io.isthmus.client.producer;

import java.lang.foreign.MemorySegment;

/**
 * A record value claimed in place in a batch buffer (Aeron's {@code tryClaim} for Kafka records): write exactly
 * {@link #length()} bytes at {@link #offset()} of {@link #buffer()}, then {@link #commit()}. Until then the partition's
 * batch is held by the claiming thread, so claim, write and commit without blocking in between.
 *
 * <p>Reusable: one instance per thread, passed to every {@link IsthmusProducer#claim} call.
 */
public final class ValueClaim {
    private IsthmusProducer producer;
    private PartitionQueue queue;
    private MemorySegment buffer;
    private long offset;
    private int length;

    void set(
            final IsthmusProducer producer,
            final PartitionQueue queue,
            final MemorySegment buffer,
            final long offset,
            final int length) {
        this.producer = producer;
        this.queue = queue;
        this.buffer = buffer;
        this.offset = offset;
        this.length = length;
    }

    /** The segment to write the value into. */
    public MemorySegment buffer() {
        return buffer;
    }

    /** Where the value starts in {@link #buffer()}. */
    public long offset() {
        return offset;
    }

    public int length() {
        return length;
    }

    /** Publishes the record: the batch may be sent from now on. */
    public void commit() {
        final PartitionQueue q = queue;
        if (q == null) {
            throw new IllegalStateException("no value claimed");
        }
        queue = null;
        buffer = null;
        producer.commitClaim(q);
    }
}
