package io.isthmus.client.rdma;

import org.apache.kafka.common.errors.RetriableException;

/**
 * The broker revoked shared produce access to a segment because a reservation before this write was never filled in
 * time ({@link ControlErrorCodes#ACCESS_REVOKED}). The write was not committed and nothing after it on that segment
 * will be: the producer asks for access again and writes it again, in order.
 */
public final class RdmaAccessRevokedException extends RetriableException {
    public RdmaAccessRevokedException(final String message) {
        super(message);
    }
}
