package io.isthmus.client.rdma;

import org.apache.kafka.common.errors.NetworkException;

/**
 * The RDMA connection a write was in flight on broke (a completion in error, a post that failed, the broker went away)
 * before the write was acknowledged, or could not be opened. Whether the broker committed the write is unknown:
 * retriable, and an idempotent producer's retry is answered with the original offset if it was committed, so it is
 * delivered once. It is Kafka's {@link NetworkException}, with that exception's contract over TCP and its consequence:
 * the producer refreshes its metadata, so on a cluster a broker that went away is not asked again while the metadata
 * names another leader.
 */
public final class RdmaConnectionLostException extends NetworkException {
    public RdmaConnectionLostException(final String message) {
        super(message);
    }

    public RdmaConnectionLostException(final String message, final Throwable cause) {
        super(message, cause);
    }
}
