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
 * @param transactionRecords records per transaction of a transactional producer (a {@code transactional.id} of its
 *     own, acks=all); 0 for a producer without transactions
 * @param isolation consumer {@code isolation.level}: {@value #READ_UNCOMMITTED} (Kafka's default) or {@value
 *     #READ_COMMITTED}
 */
public record ClientSettings(
        String bootstrap,
        String topic,
        int partitions,
        String acks,
        int lingerMs,
        int batchBytes,
        int maxInFlight,
        int fetchMaxWaitMs,
        int transactionRecords,
        String isolation) {

    public static final String READ_UNCOMMITTED = "read_uncommitted";
    public static final String READ_COMMITTED = "read_committed";

    public ClientSettings {
        if (transactionRecords < 0) {
            throw new IllegalArgumentException(
                    "transaction records must be 0 (no transactions) or more: " + transactionRecords);
        }
        if (transactionRecords > 0 && !acks.equals("all")) {
            throw new IllegalArgumentException("transactions need acks=all, not acks=" + acks);
        }
        if (!isolation.equals(READ_UNCOMMITTED) && !isolation.equals(READ_COMMITTED)) {
            throw new IllegalArgumentException(
                    "isolation must be " + READ_COMMITTED + " or " + READ_UNCOMMITTED + ": " + isolation);
        }
    }

    /** Whether producers run transactions ({@link #transactionRecords()} &gt; 0). */
    public boolean transactional() {
        return transactionRecords > 0;
    }

    /** Whether consumers read only committed data. */
    public boolean readCommitted() {
        return isolation.equals(READ_COMMITTED);
    }

    public ClientSettings withTopic(final String otherTopic) {
        return new ClientSettings(
                bootstrap,
                otherTopic,
                partitions,
                acks,
                lingerMs,
                batchBytes,
                maxInFlight,
                fetchMaxWaitMs,
                transactionRecords,
                isolation);
    }

    public ClientSettings unbatched() {
        return new ClientSettings(
                bootstrap, topic, partitions, acks, 0, batchBytes, 1, fetchMaxWaitMs, transactionRecords, isolation);
    }
}
