package io.isthmus.benchmarks.harness.client;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Consume throughput of preloaded data: one consumer reads {@code records} records (everything the topic holds) from
 * the beginning. The first tenth of them (at least the first poll's) is warmup: metadata and offset lookups, JIT. The
 * clock and the heap allocation counters start after it and stop at the last record; heap bytes per record are
 * counted on the polling thread and on all threads of the client JVM.
 *
 * <p>The count must come out exact: the run fails when the records do not all arrive before the deadline, when a poll
 * hands over more than {@code records}, or when one more poll after the clock stopped still finds records. With {@code
 * isolation.level=read_committed} over transactionally written data the consumer steps over a commit marker after
 * every transaction and reads up to the last stable offset: every committed record, and nothing else, must arrive.
 */
public final class ConsumeThroughputWorkload implements Workload {
    private static final Duration POLL = Duration.ofMillis(500);
    /** The poll after the last expected record, outside the clock, that must find nothing. */
    private static final Duration TRAILING_POLL = Duration.ofMillis(200);

    @Override
    public Map<String, Object> run(final WorkloadContext context) {
        final long[] bytes = new long[1];
        final ConsumerClient.RecordSink sink = (size, firstLong) -> bytes[0] += size;
        final Map<String, Object> result = new LinkedHashMap<>();
        try (ConsumerClient consumer = context.library().consumer(context.settings(), "bench-consumer")) {
            final long warmup = context.records() / 10;
            long seen = 0;
            while (seen == 0 || seen < warmup) {
                context.checkDeadline("the warmup's records " + seen + " of " + warmup);
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
            final long fetches = consumer.fetchRequests();
            final long extra = consumer.poll(TRAILING_POLL, (size, firstLong) -> {});
            if (seen != context.records() || extra != 0) {
                throw new IllegalStateException("consumed at least " + (seen + extra) + " records ("
                        + context.settings().isolation() + "), expected exactly " + context.records());
            }
            final long measured = seen - firstPoll;
            Throughput.put(result, measured, context.recordBytes(), nanos);
            result.put("value_bytes", bytes[0]);
            result.put("isolation", context.settings().isolation());
            result.put("heap_bytes_per_record_poll_thread", (double) threadBytes / measured);
            result.put("heap_bytes_per_record_all_threads", (double) totalBytes / measured);
            if (fetches >= 0) {
                result.put("fetch_requests", fetches);
            }
        }
        return result;
    }
}
