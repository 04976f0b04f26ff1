package io.isthmus.client.rdma;

import org.apache.kafka.common.KafkaException;

/**
 * The RDMA transport failed: the broker refused a connection or access, a one-sided operation completed in error, or
 * the device could not be used. The message carries the context (broker, partition, error code, completion status).
 */
public class RdmaTransportException extends KafkaException {
    public RdmaTransportException(final String message) {
        super(message);
    }

    public RdmaTransportException(final String message, final Throwable cause) {
        super(message, cause);
    }
}
