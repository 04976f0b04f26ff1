package io.isthmus.benchmarks.harness.client;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Produce latency without batching: {@code linger.ms=0}, one request in flight, each send waited for before the next;
 * the latency of every send after a warmup of a tenth as many goes into the histogram. Warmup and measurement each
 * stop early after {@code durationSeconds} (warmup: a fifth of it), so that a slow client still ends in bounded time;
 * {@code samples} says how many sends were measured.
 */
public final class ProduceLatencyWorkload implements Workload {
    @Override
    public Map<String, Object> run(final WorkloadContext context) throws Exception {
        final byte[] value = context.value();
        final long warmup = Math.max(1, context.records() / 10);
        final LatencyRecorder latencies = new LatencyRecorder();
        try (ProducerClient producer =
                context.library().producer(context.settings().unbatched(), "bench-latency")) {
            final long limitNanos = (long) (context.durationSeconds() * 1e9);
            final long warmupStart = System.nanoTime();
            for (long i = 0; i < warmup && System.nanoTime() - warmupStart < limitNanos / 5; i++) {
                producer.sendAndWait(value);
            }
            context.beginPhase();
            final long start = System.nanoTime();
            for (long i = 0; i < context.records() && System.nanoTime() - start < limitNanos; i++) {
                context.checkDeadline("send " + i + " of " + context.records());
                final long sent = System.nanoTime();
                producer.sendAndWait(value);
                latencies.record(System.nanoTime() - sent);
            }
            final long nanos = System.nanoTime() - start;
            context.endPhase();
            final Map<String, Object> result = new LinkedHashMap<>(latencies.summary());
            result.put("seconds", nanos / 1e9);
            return result;
        }
    }
}
