package io.isthmus.client.shm;

import org.apache.kafka.common.KafkaException;

/**
 * The shared-memory transport failed: the broker refused a session or access, its directory or a segment file could
 * not be mapped (another host, another OS user), or the broker restarted under a session. The message carries the
 * context (broker, directory, partition, error code).
 */
public class ShmTransportException extends KafkaException {
    public ShmTransportException(final String message) {
        super(message);
    }

    public ShmTransportException(final String message, final Throwable cause) {
        super(message, cause);
    }
}
