package io.isthmus.benchmarks.harness.client;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Produce throughput: one producer sends {@code records} records as fast as it can with the settings' batching, after
 * a warmup of a tenth as many (at most 100,000) that also loads metadata. Measured from the first send to the end of
 * {@code flush()}: every record acknowledged.
 */
public final class ProduceThroughputWorkload implements Workload {
    @Override
    public Map<String, Object> run(final WorkloadContext context) throws Exception {
        final byte[] value = context.value();
        final long warmup = Math.min(100_000, Math.max(1, context.records() / 10));
        final AtomicLong errors = new AtomicLong();
        final AtomicReference<Exception> firstError = new AtomicReference<>();
        final ProducerClient.Acknowledgement acknowledgement = error -> {
            if (error != null) {
                errors.incrementAndGet();
                firstError.compareAndSet(null, error);
            }
        };
        final Map<String, Object> result = new LinkedHashMap<>();
        try (ProducerClient producer = context.library().producer(context.settings(), "bench-producer")) {
            for (long i = 0; i < warmup; i++) {
                producer.send(value, acknowledgement);
            }
            producer.flush();
            context.beginPhase();
            final HeapAllocation allocation = HeapAllocation.start();
            final long start = System.nanoTime();
            for (long i = 0; i < context.records(); i++) {
                producer.send(value, acknowledgement);
            }
            producer.flush();
            final long nanos = System.nanoTime() - start;
            final long threadBytes = allocation.threadBytes();
            final long totalBytes = allocation.totalBytes();
            context.endPhase();
            if (errors.get() > 0) {
                throw new IllegalStateException(
                        "produce failed: errors=" + errors.get() + " first=" + firstError.get(), firstError.get());
            }
            Throughput.put(result, context.records(), context.recordBytes(), nanos);
            result.put("records_total", warmup + context.records());
            result.put("heap_bytes_per_record_send_thread", (double) threadBytes / context.records());
            result.put("heap_bytes_per_record_all_threads", (double) totalBytes / context.records());
        }
        return result;
    }
}
