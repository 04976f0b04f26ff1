package io.isthmus.e2e;

import io.isthmus.broker.Broker;
import io.isthmus.broker.config.BrokerConfig;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** An isthmus broker in this JVM, on a free loopback port, over a test's directory. */
public final class EmbeddedBroker {
    private EmbeddedBroker() {}

    public static Broker start(final Path logDir, final String... overrides) throws Exception {
        final Map<String, String> settings = new HashMap<>();
        settings.put(BrokerConfig.LISTENERS, "PLAINTEXT://127.0.0.1:0");
        settings.put(BrokerConfig.LOG_DIRS, logDir.toString());
        settings.put("log.segment.bytes", Integer.toString(16 * 1024 * 1024));
        settings.put(BrokerConfig.NUM_NETWORK_THREADS, "2");
        for (final String override : overrides) {
            final int eq = override.indexOf('=');
            settings.put(override.substring(0, eq), override.substring(eq + 1));
        }
        return Broker.start(BrokerConfig.of(settings));
    }
}
