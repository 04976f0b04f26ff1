package io.isthmus.benchmarks.harness.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The cost of empty polls: {@code consumers} consumers, each on its own thread, poll an empty topic for {@code
 * durationSeconds} with the settings' {@code fetch.max.wait.ms}. Reports the fetch requests they sent; the harness
 * divides the broker's CPU time over the same phase by it.
 */
public final class IdleFetchWorkload implements Workload {
    private static final Duration POLL = Duration.ofMillis(100);

    @Override
    public Map<String, Object> run(final WorkloadContext context) throws Exception {
        final int count = context.consumers();
        final CountDownLatch warm = new CountDownLatch(count);
        final AtomicBoolean measuring = new AtomicBoolean();
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicLong fetchesAtStart = new AtomicLong();
        final AtomicLong fetchesAtEnd = new AtomicLong();
        final AtomicLong unexpectedRecords = new AtomicLong();
        final List<CompletableFuture<Void>> done = new ArrayList<>();
        for (int c = 0; c < count; c++) {
            final CompletableFuture<Void> finished = new CompletableFuture<>();
            done.add(finished);
            final String clientId = "bench-idle-" + c;
            Thread.ofPlatform().name(clientId).start(() -> {
                try (ConsumerClient consumer = context.library().consumer(context.settings(), clientId)) {
                    final ConsumerClient.RecordSink sink = (size, first) -> unexpectedRecords.incrementAndGet();
                    // Warm: the first fetches (metadata, offsets) are done before the phase begins.
                    while (consumer.fetchRequests() < 3) {
                        context.checkDeadline(clientId + " to start fetching");
                        consumer.poll(POLL, sink);
                    }
                    warm.countDown();
                    while (!measuring.get() && !stop.get()) {
                        consumer.poll(POLL, sink);
                    }
                    fetchesAtStart.addAndGet(consumer.fetchRequests());
                    while (!stop.get()) {
                        consumer.poll(POLL, sink);
                    }
                    fetchesAtEnd.addAndGet(consumer.fetchRequests());
                    finished.complete(null);
                } catch (final RuntimeException e) {
                    warm.countDown();
                    finished.completeExceptionally(e);
                }
            });
        }
        if (!warm.await(context.remaining().toMillis(), TimeUnit.MILLISECONDS)) {
            stop.set(true);
            throw new IllegalStateException("consumers did not start fetching before the deadline");
        }
        context.beginPhase();
        final long start = System.nanoTime();
        measuring.set(true);
        final long until = start + (long) (context.durationSeconds() * 1e9);
        long now;
        while ((now = System.nanoTime()) < until) {
            TimeUnit.NANOSECONDS.sleep(Math.min(until - now, 100_000_000L));
        }
        stop.set(true);
        for (final CompletableFuture<Void> finished : done) {
            finished.get(context.remaining().toMillis(), TimeUnit.MILLISECONDS);
        }
        final long nanos = System.nanoTime() - start;
        context.endPhase();
        final Map<String, Object> result = new LinkedHashMap<>();
        result.put("consumers", count);
        result.put("fetch_max_wait_ms", context.settings().fetchMaxWaitMs());
        result.put("seconds", nanos / 1e9);
        result.put("fetch_requests", fetchesAtEnd.get() - fetchesAtStart.get());
        result.put("fetches_per_s", (fetchesAtEnd.get() - fetchesAtStart.get()) / (nanos / 1e9));
        result.put("unexpected_records", unexpectedRecords.get());
        return result;
    }
}
