package io.isthmus.broker.log;

/**
 * Bytes written in place (RDMA produce) cannot be committed where they are: the segment is sealed or gone, or the
 * write does not start at the committed tail. The producer has to ask for access again.
 */
public final class SegmentNotWritableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public SegmentNotWritableException(final String message) {
        super(message);
    }
}
