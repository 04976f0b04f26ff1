package io.isthmus.client.shm;

import org.apache.kafka.common.errors.RetriableException;

/**
 * The broker answered a doorbell or an access request with a retriable refusal: the staging file's grant was released
 * or revoked (an ACL change), or the session is gone. The batch was not appended and neither was any rung after it on
 * that grant: the producer asks for access again and writes them again, in order.
 */
public final class ShmAccessRevokedException extends RetriableException {
    public ShmAccessRevokedException(final String message) {
        super(message);
    }
}
