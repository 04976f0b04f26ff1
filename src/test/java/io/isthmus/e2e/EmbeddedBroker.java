package io.isthmus.e2e;

import io.isthmus.broker.Broker;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** An isthmus broker in this JVM ({@link Broker#startEmbedded}) sized for tests, with key=value overrides. */
public final class EmbeddedBroker {
    private EmbeddedBroker() {}

    public static Broker start(final Path logDir, final String... overrides) throws Exception {
        final Map<String, String> settings = new HashMap<>();
        settings.put("log.segment.bytes", Integer.toString(16 * 1024 * 1024));
        settings.put("num.network.threads", "2");
        for (final String override : overrides) {
            final int eq = override.indexOf('=');
            settings.put(override.substring(0, eq), override.substring(eq + 1));
        }
        return Broker.startEmbedded(logDir, settings);
    }
}
