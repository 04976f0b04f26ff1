package io.isthmus.benchmarks.harness.client;

/**
 * The client settings a workload asks for, in the terms of Kafka's producer and consumer configuration.
 *
 * @param bootstrap broker address
 * @param topic the topic every client of the workload uses
 * @param partitions partitions of the topic (consumers assign all of them)
 * @param acks "1" or "all"
 * @param lingerMs producer {@code linger.ms}
 * @param batchBytes producer {@code batch.size}
 * @param maxInFlight producer {@code max.in.flight.requests.per.connection}
 * @param fetchMaxWaitMs consumer {@code fetch.max.wait.ms}
 */
public record ClientSettings(
        String bootstrap,
        String topic,
        int partitions,
        String acks,
        int lingerMs,
        int batchBytes,
        int maxInFlight,
        int fetchMaxWaitMs) {

    public ClientSettings withTopic(final String otherTopic) {
        return new ClientSettings(
                bootstrap, otherTopic, partitions, acks, lingerMs, batchBytes, maxInFlight, fetchMaxWaitMs);
    }

    public ClientSettings unbatched() {
        return new ClientSettings(bootstrap, topic, partitions, acks, 0, batchBytes, 1, fetchMaxWaitMs);
    }
}
