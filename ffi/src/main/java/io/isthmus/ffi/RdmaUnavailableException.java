package io.isthmus.ffi;

/**
 * Thrown when a verb is used on a host where rdma-core is missing or has no device; the message
 * is the same reason {@link Rdma#availability()} gives.
 */
public class RdmaUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public RdmaUnavailableException(String reason) {
        super(reason);
    }
}
