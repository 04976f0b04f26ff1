package io.isthmus.metadata.image;

import java.util.Objects;

/**
 * One listener a broker registered: where clients (or other brokers) reach it.
 *
 * @param listener the listener's name, as in {@code listeners} ({@code PLAINTEXT}, {@code SASL_SSL}, ...)
 * @param host the advertised host
 * @param port the advertised port
 * @param securityProtocol Kafka's id of the listener's security protocol
 */
public record BrokerEndpoint(String listener, String host, int port, short securityProtocol) {
    public BrokerEndpoint {
        Objects.requireNonNull(listener, "listener");
        Objects.requireNonNull(host, "host");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " of listener " + listener + " is not a TCP port");
        }
    }
}
