package io.isthmus.benchmarks.harness.client;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Produce throughput: one producer sends {@code records} records as fast as it can with the settings' batching, after
 * a warmup of a tenth as many (at most 100,000) that also loads metadata. Measured from the first send to the end of
 * {@code flush()}: every record acknowledged. Sends go through {@link ProducerClient#send(byte[])}, each library's
 * cheapest completion path; heap bytes are counted on the sending thread and on all threads after the warmup.
 */
public final class ProduceThroughputWorkload implements Workload {
    @Override
    public Map<String, Object> run(final WorkloadContext context) throws Exception {
        final byte[] value = context.value();
        final long warmup = Math.min(100_000, Math.max(1, context.records() / 10));
        final Map<String, Object> result = new LinkedHashMap<>();
        try (ProducerClient producer = context.library().producer(context.settings(), "bench-producer")) {
            for (long i = 0; i < warmup; i++) {
                producer.send(value);
            }
            producer.flush();
            context.beginPhase();
            final HeapAllocation allocation = HeapAllocation.start();
            final long start = System.nanoTime();
            for (long i = 0; i < context.records(); i++) {
                producer.send(value);
            }
            producer.flush();
            final long nanos = System.nanoTime() - start;
            final long threadBytes = allocation.threadBytes();
            final long totalBytes = allocation.totalBytes();
            context.endPhase();
            producer.checkDelivered();
            Throughput.put(result, context.records(), context.recordBytes(), nanos);
            result.put("records_total", warmup + context.records());
            result.put("heap_bytes_per_record_send_thread", (double) threadBytes / context.records());
            result.put("heap_bytes_per_record_all_threads", (double) totalBytes / context.records());
        }
        return result;
    }
}
