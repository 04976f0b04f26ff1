package io.isthmus.broker.log;

/**
 * Batches a follower fetched do not continue its log: the base offset of one is not the offset after its predecessor
 * (Kafka's {@code UnexpectedAppendOffsetException}). Nothing was appended; the follower fetches again from its log end
 * offset.
 */
public final class UnexpectedAppendOffsetException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final long baseOffset;
    private final long expectedOffset;

    public UnexpectedAppendOffsetException(
            final String partition, final int batchIndex, final long baseOffset, final long expectedOffset) {
        super("replicated batch does not continue the log: partition=" + partition + " batchIndex=" + batchIndex
                + " baseOffset=" + baseOffset + " expectedOffset=" + expectedOffset);
        this.baseOffset = baseOffset;
        this.expectedOffset = expectedOffset;
    }

    public long baseOffset() {
        return baseOffset;
    }

    public long expectedOffset() {
        return expectedOffset;
    }
}
