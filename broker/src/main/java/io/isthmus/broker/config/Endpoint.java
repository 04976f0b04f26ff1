package io.isthmus.broker.config;

import java.util.Locale;
import org.apache.kafka.common.config.ConfigException;

/**
 * One listener, {@code NAME://host:port}. Its security protocol is the one {@code listener.security.protocol.map} gives
 * its name ({@link BrokerConfig#listenerSecurity}), as in Kafka.
 */
public record Endpoint(String listenerName, String host, int port) {
    public Endpoint {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port out of range: port=" + port);
        }
    }

    static Endpoint parse(final String spec, final String key) {
        final int scheme = spec.indexOf("://");
        final int colon = spec.lastIndexOf(':');
        if (scheme <= 0 || colon <= scheme + 2) {
            throw new ConfigException(key, spec, "expected NAME://host:port");
        }
        final String name = spec.substring(0, scheme).toUpperCase(Locale.ROOT);
        String host = spec.substring(scheme + 3, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        final int port;
        try {
            port = Integer.parseInt(spec.substring(colon + 1));
        } catch (final NumberFormatException e) {
            throw new ConfigException(key, spec, "the port is not a number");
        }
        if (port < 0 || port > 65535) {
            throw new ConfigException(key, spec, "the port must be within 0..65535");
        }
        return new Endpoint(name, host.isEmpty() ? "0.0.0.0" : host, port);
    }

    public Endpoint withPort(final int boundPort) {
        return new Endpoint(listenerName, host, boundPort);
    }

    @Override
    public String toString() {
        return listenerName + "://" + host + ":" + port;
    }
}
