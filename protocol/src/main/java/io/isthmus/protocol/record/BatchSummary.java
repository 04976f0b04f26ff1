package io.isthmus.protocol.record;

/**
 * What one full validation learned about a batch's header, so that no later step of an append reads the header again:
 * the producer-state check, the grouping into segments, offset assignment and the indexes all trust it. Filled by
 * {@link RecordBatchValidator#validate(java.lang.foreign.MemorySegment, long, long, RecordBatchValidator.Mode,
 * BatchDecompressor, BatchSummary)}; mutable and reused, so an append allocates none per batch.
 */
public final class BatchSummary {
    private long position;
    private long sizeInBytes;
    private short attributes;
    private int lastOffsetDelta;
    private int recordCount;
    private long maxTimestamp;
    private long producerId;
    private short producerEpoch;
    private int baseSequence;

    /** Called by the validator once the header has passed its checks; every value comes from that one read. */
    void fill(
            final long position,
            final long sizeInBytes,
            final short attributes,
            final int lastOffsetDelta,
            final int recordCount,
            final long maxTimestamp,
            final long producerId,
            final short producerEpoch,
            final int baseSequence) {
        this.position = position;
        this.sizeInBytes = sizeInBytes;
        this.attributes = attributes;
        this.lastOffsetDelta = lastOffsetDelta;
        this.recordCount = recordCount;
        this.maxTimestamp = maxTimestamp;
        this.producerId = producerId;
        this.producerEpoch = producerEpoch;
        this.baseSequence = baseSequence;
    }

    /** Where the batch starts in the memory it was validated in. */
    public long position() {
        return position;
    }

    /** The whole batch, {@link RecordBatchDescriptor#LOG_OVERHEAD} included. */
    public long sizeInBytes() {
        return sizeInBytes;
    }

    public int lastOffsetDelta() {
        return lastOffsetDelta;
    }

    /** Offsets the batch takes: last offset delta + 1. */
    public long offsetCount() {
        return lastOffsetDelta + 1L;
    }

    public int recordCount() {
        return recordCount;
    }

    public long maxTimestamp() {
        return maxTimestamp;
    }

    public long producerId() {
        return producerId;
    }

    /** True for batches of an idempotent or transactional producer: they carry a producer id and sequences. */
    public boolean hasProducerId() {
        return producerId >= 0;
    }

    public short producerEpoch() {
        return producerEpoch;
    }

    public int baseSequence() {
        return baseSequence;
    }

    /** Last sequence number, wrapping at Integer.MAX_VALUE as Kafka's does; {@code NO_SEQUENCE} if there is none. */
    public int lastSequence() {
        return RecordBatchDescriptor.lastSequence(baseSequence, lastOffsetDelta);
    }

    public boolean isTransactional() {
        return (attributes & RecordBatchDescriptor.TRANSACTIONAL_FLAG_MASK) != 0;
    }

    public boolean isControl() {
        return (attributes & RecordBatchDescriptor.CONTROL_FLAG_MASK) != 0;
    }

    @Override
    public String toString() {
        return "BatchSummary{position=" + position + ", size=" + sizeInBytes + ", lastOffsetDelta=" + lastOffsetDelta
                + ", records=" + recordCount + ", maxTimestamp=" + maxTimestamp + ", producerId=" + producerId
                + ", epoch=" + producerEpoch + ", baseSequence=" + baseSequence + ", attributes=" + attributes + '}';
    }
}
