package io.isthmus.broker.rdma;

/**
 * What an RDMA produce grant was made on, and what each of its writes is held to ({@link LeaderWrites}).
 *
 * @param leaderEpoch the leader epoch the grant was made in: its writes are committed only while this broker leads the
 *     partition in it
 * @param acks the producer's acks: -1 answers a write once {@code min.insync.replicas} hold its batch, within {@code
 *     timeoutMs}; 1 and 0 once the leader has committed it
 * @param timeoutMs how long an {@code acks=-1} write waits for the in-sync replicas (the producer's {@code
 *     request.timeout.ms})
 */
record ProduceTerms(int leaderEpoch, short acks, int timeoutMs) {
    /** Whether a write is answered only once the in-sync replicas hold it. */
    boolean awaitsReplicas() {
        return acks == -1;
    }
}
