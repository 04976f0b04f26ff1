package io.isthmus.broker.producer;

import org.apache.kafka.common.protocol.Errors;

/**
 * An append refused by the idempotent-producer check (Kafka's OutOfOrderSequenceException and
 * InvalidProducerEpochException): nothing of the append was written.
 */
public final class ProducerRejectedException extends RuntimeException {
    private final Errors error;

    public ProducerRejectedException(final Errors error, final String message) {
        super(message);
        this.error = error;
    }

    /** Kafka's error code for the producer. */
    public Errors error() {
        return error;
    }
}
