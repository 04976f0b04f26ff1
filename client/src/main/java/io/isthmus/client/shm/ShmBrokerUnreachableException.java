package io.isthmus.client.shm;

/**
 * The broker of a shared-memory session could not be reached, or its control connection broke: a broker that is down
 * or restarting. Unlike a refusal, this passes when the broker is back, so a consumer that had a session waits and
 * attaches again.
 */
public class ShmBrokerUnreachableException extends ShmTransportException {
    public ShmBrokerUnreachableException(final String message, final Throwable cause) {
        super(message, cause);
    }
}
