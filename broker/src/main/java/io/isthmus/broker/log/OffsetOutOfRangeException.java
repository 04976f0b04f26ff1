package io.isthmus.broker.log;

/** A fetch or lookup offset lies outside {@code [logStartOffset, logEndOffset]} (Kafka's OFFSET_OUT_OF_RANGE). */
public final class OffsetOutOfRangeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final long offset;
    private final long logStartOffset;
    private final long logEndOffset;

    public OffsetOutOfRangeException(
            final String partition, final long offset, final long logStartOffset, final long logEndOffset) {
        super("offset out of range: partition=" + partition + " offset=" + offset + " logStartOffset=" + logStartOffset
                + " logEndOffset=" + logEndOffset);
        this.offset = offset;
        this.logStartOffset = logStartOffset;
        this.logEndOffset = logEndOffset;
    }

    public long offset() {
        return offset;
    }

    public long logStartOffset() {
        return logStartOffset;
    }

    public long logEndOffset() {
        return logEndOffset;
    }
}
