package io.isthmus.benchmarks.harness.client;

/**
 * The client implementation a workload runs on. Only kafka-clients exists today; the isthmus producer and consumer
 * join as a second constant with their own two adapters when they land in {@code client/}, and every workload, the
 * harness's plan ({@code --client}) and the report's rows work for them unchanged.
 */
public enum ClientLibrary {
    KAFKA_CLIENTS("kafka-clients") {
        @Override
        public ProducerClient producer(final ClientSettings settings, final String clientId) {
            return new KafkaProducerClient(settings, clientId);
        }

        @Override
        public ConsumerClient consumer(final ClientSettings settings, final String clientId) {
            return new KafkaConsumerClient(settings, clientId);
        }
    };

    private final String label;

    ClientLibrary(final String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    public abstract ProducerClient producer(ClientSettings settings, String clientId);

    public abstract ConsumerClient consumer(ClientSettings settings, String clientId);

    public static ClientLibrary ofLabel(final String label) {
        for (final ClientLibrary library : values()) {
            if (library.label.equals(label)) {
                return library;
            }
        }
        throw new IllegalArgumentException("unknown client library: " + label + " (known: kafka-clients)");
    }
}
