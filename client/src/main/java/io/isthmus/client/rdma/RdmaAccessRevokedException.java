package io.isthmus.client.rdma;

import io.isthmus.protocol.control.ControlErrorCodes;
import org.apache.kafka.common.errors.RetriableException;

/**
 * The broker answered a write or an access request with a {@link ControlErrorCodes#isRetriable retriable} code: access
 * was revoked ({@link ControlErrorCodes#ACCESS_REVOKED}: a shared reservation before this write was never filled in
 * time, or the grant was dropped before this write arrived), is held by another producer for now, or the write was
 * rejected before it was committed. The write was not committed and nothing after it on that grant will be: the
 * producer asks for access again and writes it again, in order.
 */
public final class RdmaAccessRevokedException extends RetriableException {
    public RdmaAccessRevokedException(final String message) {
        super(message);
    }
}
