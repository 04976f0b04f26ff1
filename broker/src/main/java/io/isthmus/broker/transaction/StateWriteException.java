package io.isthmus.broker.transaction;

import org.apache.kafka.common.protocol.Errors;

/**
 * A transaction state could not be made durable: the coordinator keeps the state it had and answers {@link #error()},
 * which transactional producers retry (Kafka's coordinator answers a failed state append the same way).
 */
public final class StateWriteException extends RuntimeException {
    private final Errors error;

    public StateWriteException(final Errors error, final String message) {
        super(message);
        this.error = error;
    }

    /** NOT_COORDINATOR where this broker no longer leads the state partition, COORDINATOR_NOT_AVAILABLE otherwise. */
    public Errors error() {
        return error;
    }
}
