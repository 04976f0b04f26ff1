package io.isthmus.benchmarks.harness.client;

/**
 * The client implementation a workload runs on, with its recommended producer batching: every workload, the
 * harness's plan and the report's rows work for each constant unchanged.
 */
public enum ClientLibrary {
    /** kafka-clients 4.4.0: linger.ms=5 (its default), batch.size=64 KiB. */
    KAFKA_CLIENTS("kafka-clients", "kafka-clients", 5, 64 * 1024) {
        @Override
        public ProducerClient producer(final ClientSettings settings, final String clientId) {
            return new KafkaProducerClient(settings, clientId);
        }

        @Override
        public ConsumerClient consumer(final ClientSettings settings, final String clientId) {
            return new KafkaConsumerClient(settings, clientId);
        }
    },
    /** The isthmus producer and zero-copy consumer over TCP: linger.ms=2, batch.size=256 KiB, as its demo runs. */
    ISTHMUS("isthmus", "isthmus client", 2, 256 * 1024) {
        @Override
        public ProducerClient producer(final ClientSettings settings, final String clientId) {
            return new IsthmusProducerClient(settings, clientId, "tcp");
        }

        @Override
        public ConsumerClient consumer(final ClientSettings settings, final String clientId) {
            return new IsthmusConsumerClient(settings, clientId, "tcp");
        }
    },
    /**
     * The isthmus producer and zero-copy consumer over shared memory ({@code transport=shm}, the broker on this host):
     * staging files and a doorbell per batch to produce, the broker's mapped segments to consume.
     */
    ISTHMUS_SHM("isthmus-shm", "isthmus client over shm", 2, 256 * 1024) {
        @Override
        public ProducerClient producer(final ClientSettings settings, final String clientId) {
            return new IsthmusProducerClient(settings, clientId, settings.transactional() ? "tcp" : "shm");
        }

        @Override
        public ConsumerClient consumer(final ClientSettings settings, final String clientId) {
            return new IsthmusConsumerClient(settings, clientId, "shm");
        }
    };

    private final String label;
    private final String title;
    private final int recommendedLingerMs;
    private final int recommendedBatchBytes;

    ClientLibrary(
            final String label, final String title, final int recommendedLingerMs, final int recommendedBatchBytes) {
        this.label = label;
        this.title = title;
        this.recommendedLingerMs = recommendedLingerMs;
        this.recommendedBatchBytes = recommendedBatchBytes;
    }

    /** The name {@code --client} takes and results.json uses. */
    public String label() {
        return label;
    }

    /** The name in report tables. */
    public String title() {
        return title;
    }

    /** {@code linger.ms} of throughput runs. */
    public int recommendedLingerMs() {
        return recommendedLingerMs;
    }

    /** {@code batch.size} of throughput runs. */
    public int recommendedBatchBytes() {
        return recommendedBatchBytes;
    }

    /** What this library's producer and consumer are given beyond the case's settings, for the report. */
    public String recommendedSettings() {
        return switch (this) {
            case KAFKA_CLIENTS ->
                "producer linger.ms=5 batch.size=64 KiB buffer.memory=256 MiB compression=none, one shared Callback"
                        + " per send; consumer default fetch sizes (max.partition.fetch.bytes=1 MiB,"
                        + " max.poll.records=500), check.crcs=true, poll(Duration) with ConsumerRecords<byte[], byte[]>";
            case ISTHMUS ->
                "producer linger.ms=2 batch.size=256 KiB buffer.memory=64 MiB compression=none transport=tcp,"
                        + " send(topic, key, value) with a per-batch DeliveryListener (no per-record completion);"
                        + " consumer max.partition.fetch.bytes="
                        + (IsthmusConsumerClient.MAX_PARTITION_FETCH_BYTES >> 20)
                        + " MiB, check.crcs=true, transport=tcp, the allocation-free poll(handler, "
                        + IsthmusConsumerClient.POLL_LIMIT + ", timeout) reading values in place";
            case ISTHMUS_SHM ->
                "consumer only (topics preloaded by kafka-clients): the isthmus consumer as above with transport=shm,"
                        + " reading the broker's segment files in place through read-only mappings";
        };
    }

    public abstract ProducerClient producer(ClientSettings settings, String clientId);

    public abstract ConsumerClient consumer(ClientSettings settings, String clientId);

    public static ClientLibrary ofLabel(final String label) {
        for (final ClientLibrary library : values()) {
            if (library.label.equals(label)) {
                return library;
            }
        }
        throw new IllegalArgumentException(
                "unknown client library: " + label + " (known: kafka-clients, isthmus, isthmus-shm)");
    }
}
