package io.isthmus.benchmarks.harness.client;

import java.time.Duration;

/** What a workload needs from a consumer: read every partition of one topic from the beginning, without a group. */
public interface ConsumerClient extends AutoCloseable {
    /**
     * Polls once, handing each record to {@code sink}; returns the number of records. May return 0 after {@code
     * timeout}.
     */
    int poll(Duration timeout, RecordSink sink);

    /** Moves every partition back to its beginning, dropping whatever is buffered: the next polls read it all again. */
    void rewind();

    /** Fetch requests this consumer has sent so far (empty ones included), or -1 where the library counts none. */
    long fetchRequests();

    /** Whether this consumer has sent its first fetch (it is then waiting on the broker for records). */
    boolean fetching();

    @Override
    void close();

    /**
     * Receives a record's value as its size and its first eight bytes (big-endian, 0 if shorter): what throughput and
     * latency workloads look at, and what a zero-copy consumer can hand over without materialising the value.
     */
    @FunctionalInterface
    interface RecordSink {
        void onRecord(int valueSize, long firstLong);
    }
}
