package io.isthmus.benchmarks.harness.client;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Consume throughput of preloaded data: one consumer reads {@code records} records (everything the topic holds) from
 * the beginning, in whole passes over the topic. It reads the topic and rewinds until the context's warmup has gone
 * by (one pass at least: metadata and offset lookups, JIT), then reads it once more; the clock runs from the poll that
 * reaches the first tenth of that pass to its last record, when both clients fetch ahead in steady state. Why not from
 * the rewind: the pass before left a fetch at the log end waiting on the broker for up to {@code fetch.max.wait.ms},
 * and a consumer waits for it before it fetches from the beginning; and the first fetch after it would hand records
 * over on the clock whose fetching was not. The heap allocation counters cover the same span, on the polling thread and
 * on all threads of the client JVM.
 *
 * <p>The count must come out exact: the run fails when a pass's records do not all arrive before the deadline, when
 * polls hand over more than {@code records}, or when one more poll after the clock stopped still finds records. With
 * {@code isolation.level=read_committed} over transactionally written data the consumer steps over a commit marker
 * after every transaction and reads up to the last stable offset: every committed record, and nothing else, must
 * arrive.
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
            final long warmupStart = System.nanoTime();
            int warmupPasses = 0;
            do {
                readPass(consumer, context, sink, 0, "warm-up pass " + (warmupPasses + 1));
                consumer.rewind();
                warmupPasses++;
            } while (System.nanoTime() - warmupStart < context.warmup().toNanos());
            long firstPoll = 0;
            while (firstPoll == 0 || firstPoll < context.records() / 10) {
                context.checkDeadline("the measured pass's first tenth: records " + firstPoll);
                firstPoll += consumer.poll(POLL, sink);
            }
            bytes[0] = 0;
            context.beginPhase();
            final HeapAllocation allocation = HeapAllocation.start();
            final long start = System.nanoTime();
            final long seen = readPass(consumer, context, sink, firstPoll, "measured pass");
            final long nanos = System.nanoTime() - start;
            final long threadBytes = allocation.threadBytes();
            final long totalBytes = allocation.totalBytes();
            context.endPhase();
            final long fetches = consumer.fetchRequests();
            final long extra = consumer.poll(TRAILING_POLL, (size, firstLong) -> {});
            if (extra != 0) {
                throw new IllegalStateException("consumed at least " + (seen + extra) + " records ("
                        + context.settings().isolation() + "), expected exactly " + context.records());
            }
            final long measured = seen - firstPoll;
            if (measured <= 0) {
                throw new IllegalStateException("the polls before the clock took all " + seen
                        + " records of the measured pass: preload more records to measure anything");
            }
            Throughput.put(result, measured, context.recordBytes(), nanos);
            result.put("value_bytes", bytes[0]);
            result.put("isolation", context.settings().isolation());
            result.put("warmup_passes", warmupPasses);
            result.put("heap_bytes_per_record_poll_thread", (double) threadBytes / measured);
            result.put("heap_bytes_per_record_all_threads", (double) totalBytes / measured);
            if (fetches >= 0) {
                result.put("fetch_requests", fetches);
            }
        }
        return result;
    }

    /**
     * Reads the rest of a pass over the topic, of which {@code alreadySeen} records have arrived: exactly {@code
     * records} records in all.
     */
    private static long readPass(
            final ConsumerClient consumer,
            final WorkloadContext context,
            final ConsumerClient.RecordSink sink,
            final long alreadySeen,
            final String pass) {
        long seen = alreadySeen;
        while (seen < context.records()) {
            context.checkDeadline(pass + ": records " + seen + " of " + context.records());
            seen += consumer.poll(POLL, sink);
        }
        if (seen != context.records()) {
            throw new IllegalStateException(pass + ": consumed " + seen + " records ("
                    + context.settings().isolation() + "), expected exactly " + context.records());
        }
        return seen;
    }
}
