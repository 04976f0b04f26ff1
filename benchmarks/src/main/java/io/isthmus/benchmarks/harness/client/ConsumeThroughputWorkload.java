package io.isthmus.benchmarks.harness.client;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Consume throughput of preloaded data: one consumer reads {@code records} records (everything the topic holds) from
 * the beginning. The clock starts when the first records arrive (metadata and offset lookups are not measured) and
 * stops at the last record; the records of that first poll are not counted.
 */
public final class ConsumeThroughputWorkload implements Workload {
    private static final Duration POLL = Duration.ofMillis(500);

    @Override
    public Map<String, Object> run(final WorkloadContext context) {
        final long[] bytes = new long[1];
        final ConsumerClient.RecordSink sink = (size, firstLong) -> bytes[0] += size;
        final Map<String, Object> result = new LinkedHashMap<>();
        try (ConsumerClient consumer = context.library().consumer(context.settings(), "bench-consumer")) {
            long seen = 0;
            while (seen == 0) {
                context.checkDeadline("the first records");
                seen += consumer.poll(POLL, sink);
            }
            final long firstPoll = seen;
            bytes[0] = 0;
            context.beginPhase();
            final HeapAllocation allocation = HeapAllocation.start();
            final long start = System.nanoTime();
            while (seen < context.records()) {
                context.checkDeadline("records " + seen + " of " + context.records());
                seen += consumer.poll(POLL, sink);
            }
            final long nanos = System.nanoTime() - start;
            final long threadBytes = allocation.threadBytes();
            final long totalBytes = allocation.totalBytes();
            context.endPhase();
            final long measured = seen - firstPoll;
            Throughput.put(result, measured, context.recordBytes(), nanos);
            result.put("value_bytes", bytes[0]);
            result.put("heap_bytes_per_record_poll_thread", (double) threadBytes / measured);
            result.put("heap_bytes_per_record_all_threads", (double) totalBytes / measured);
            result.put("fetch_requests", consumer.fetchRequests());
        }
        return result;
    }
}
