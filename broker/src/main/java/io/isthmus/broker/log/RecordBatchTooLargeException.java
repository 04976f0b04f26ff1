package io.isthmus.broker.log;

/** A single batch is larger than a whole segment, so no roll can make it fit (Kafka's RECORD_TOO_LARGE). */
public final class RecordBatchTooLargeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public RecordBatchTooLargeException(final String message) {
        super(message);
    }
}
