package io.isthmus.benchmarks.harness.client;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * End-to-end latency at a fixed offered rate: a producer thread sends {@code ratePerSecond} records per second for
 * {@code durationSeconds} ({@code linger.ms=0}, {@code acks} as set); a consumer in the same process (so both read
 * the same clock) long-polls and records, per record, the time from its <i>intended</i> send time to its arrival.
 * Measuring from the schedule, not the actual send, keeps a stalled producer from hiding latency (coordinated
 * omission). The first second is warmup.
 */
public final class EndToEndLatencyWorkload implements Workload {
    private static final Duration POLL = Duration.ofMillis(100);
    private static final long WARMUP_NANOS = 1_000_000_000L;

    @Override
    public Map<String, Object> run(final WorkloadContext context) throws Exception {
        final long intervalNanos = 1_000_000_000L / context.ratePerSecond();
        final long total = (long) ((context.durationSeconds() + 1) * context.ratePerSecond());
        final LatencyRecorder latencies = new LatencyRecorder();
        final AtomicBoolean consumerReady = new AtomicBoolean();
        final long[] received = new long[1];
        final CompletableFuture<Void> consumed = new CompletableFuture<>();
        // Set once the consumer runs; the first second after it is warmup.
        final AtomicLong origin = new AtomicLong(Long.MAX_VALUE);
        final Thread consumerThread = Thread.ofPlatform()
                .name("bench-e2e-consumer")
                .start(() -> {
                    try (ConsumerClient consumer =
                            context.library().consumer(context.settings(), "bench-e2e-consumer")) {
                        final ConsumerClient.RecordSink sink = (size, intended) -> {
                            final long now = System.nanoTime();
                            received[0]++;
                            if (intended - origin.get() >= WARMUP_NANOS) {
                                latencies.record(now - intended);
                            }
                        };
                        consumer.poll(Duration.ZERO, sink);
                        consumerReady.set(true);
                        while (received[0] < total) {
                            context.checkDeadline("records " + received[0] + " of " + total);
                            consumer.poll(POLL, sink);
                        }
                        consumed.complete(null);
                    } catch (final RuntimeException e) {
                        consumed.completeExceptionally(e);
                    }
                });
        try (ProducerClient producer =
                context.library().producer(context.settings().unbatched(), "bench-e2e-producer")) {
            final ByteBuffer value = ByteBuffer.wrap(context.value());
            while (!consumerReady.get()) {
                context.checkDeadline("the consumer to start");
                if (consumed.isDone()) {
                    consumed.get();
                }
                LockSupport.parkNanos(1_000_000);
            }
            context.beginPhase();
            final long start = System.nanoTime();
            origin.set(start);
            for (long i = 0; i < total; i++) {
                final long intended = start + i * intervalNanos;
                long now;
                while ((now = System.nanoTime()) < intended) {
                    LockSupport.parkNanos(Math.min(intended - now, 200_000));
                }
                final byte[] bytes = new byte[value.capacity()];
                value.get(0, bytes);
                ByteBuffer.wrap(bytes).putLong(0, intended);
                producer.send(bytes);
            }
            producer.flush();
            if (producer.failedRecords() > 0) {
                consumerThread.interrupt();
                producer.checkDelivered();
            }
        }
        try {
            consumed.get(context.remaining().toMillis(), TimeUnit.MILLISECONDS);
        } catch (final TimeoutException | ExecutionException e) {
            consumerThread.interrupt();
            throw e;
        }
        context.endPhase();
        final Map<String, Object> result = new LinkedHashMap<>(latencies.summary());
        result.put("offered_rate_per_s", context.ratePerSecond());
        result.put("records", total);
        return result;
    }
}
