package io.isthmus.broker.log;

/**
 * An RDMA producer's batch cannot be committed where it was to go: the segment is sealed or gone, the write does not
 * start at the committed tail, or the disk has no room for it. The producer has to ask for access again.
 */
public final class SegmentNotWritableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public SegmentNotWritableException(final String message) {
        super(message);
    }

    public SegmentNotWritableException(final String message, final Throwable cause) {
        super(message, cause);
    }
}
