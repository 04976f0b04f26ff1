package io.isthmus.benchmarks.harness;

import io.isthmus.benchmarks.harness.client.ClientLibrary;
import java.util.List;

/**
 * One client library against one broker: a row of the report. The headline compares {@link #ISTHMUS_STACK} with
 * {@link #KAFKA_STACK}; {@link #KAFKA_CLIENTS_ON_ISTHMUS} against {@link #KAFKA_STACK} is the broker alone (the same
 * client on both), and against {@link #ISTHMUS_STACK} the client alone (the same broker under both).
 */
public record Pairing(ClientLibrary client, BrokerKind broker) {
    public static final Pairing ISTHMUS_STACK = new Pairing(ClientLibrary.ISTHMUS, BrokerKind.ISTHMUS);
    public static final Pairing KAFKA_CLIENTS_ON_ISTHMUS = new Pairing(ClientLibrary.KAFKA_CLIENTS, BrokerKind.ISTHMUS);
    public static final Pairing KAFKA_STACK = new Pairing(ClientLibrary.KAFKA_CLIENTS, BrokerKind.KAFKA);
    public static final Pairing ISTHMUS_CLIENT_ON_KAFKA = new Pairing(ClientLibrary.ISTHMUS, BrokerKind.KAFKA);
    /** The isthmus consumer reading the isthmus broker's log through shared memory (consume cases only). */
    public static final Pairing ISTHMUS_SHM_STACK = new Pairing(ClientLibrary.ISTHMUS_SHM, BrokerKind.ISTHMUS);

    /** Every pairing, in the order of the report's rows. */
    public static final List<Pairing> ALL =
            List.of(ISTHMUS_STACK, KAFKA_CLIENTS_ON_ISTHMUS, KAFKA_STACK, ISTHMUS_CLIENT_ON_KAFKA, ISTHMUS_SHM_STACK);

    /** {@code client@broker}, the key in results.json and in log file names. */
    public String key() {
        return client.label() + "@" + broker.label();
    }

    /** {@code client → broker broker}, for tables and plot legends. */
    public String title() {
        return client.title() + " → " + broker.label() + " broker";
    }

    static Pairing ofKey(final String key) {
        for (final Pairing pairing : ALL) {
            if (pairing.key().equals(key)) {
                return pairing;
            }
        }
        throw new IllegalArgumentException("unknown pairing: " + key);
    }
}
