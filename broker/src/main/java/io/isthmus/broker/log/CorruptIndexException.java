package io.isthmus.broker.log;

/** An index file breaks one of its invariants; recovery rebuilds it from the segment. */
public final class CorruptIndexException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CorruptIndexException(final String message) {
        super(message);
    }
}
