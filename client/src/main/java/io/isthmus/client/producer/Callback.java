package io.isthmus.client.producer;

/** Called once per record when its batch is acknowledged or fails, on the producer's sender thread. */
@FunctionalInterface
public interface Callback {
    /** Exactly one of {@code metadata} and {@code exception} is non-null. */
    void onCompletion(RecordMetadata metadata, Exception exception);
}
