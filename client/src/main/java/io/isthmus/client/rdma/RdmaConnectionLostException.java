package io.isthmus.client.rdma;

import org.apache.kafka.common.errors.RetriableException;

/**
 * The RDMA connection a write was in flight on broke (a completion in error, a post that failed, the broker went away)
 * before the write was acknowledged, or could not be opened. Whether the broker committed the write is unknown:
 * retriable, and an idempotent producer's retry is answered with the original offset if it was committed, so it is
 * delivered once (Kafka's {@code NetworkException} has the same contract over TCP).
 */
public final class RdmaConnectionLostException extends RetriableException {
    public RdmaConnectionLostException(final String message) {
        super(message);
    }

    public RdmaConnectionLostException(final String message, final Throwable cause) {
        super(message, cause);
    }
}
