package io.isthmus.benchmarks.harness.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Fan-out: one producer sends {@code records} records while {@code consumers} consumers, each on its own thread and
 * already polling the empty topic, read every one of them. Measured from the first send until the last consumer has
 * the last record; reports aggregate consume throughput (consumers times records over that time).
 */
public final class FanOutWorkload implements Workload {
    private static final Duration POLL = Duration.ofMillis(100);

    @Override
    public Map<String, Object> run(final WorkloadContext context) throws Exception {
        final int count = context.consumers();
        final long records = context.records();
        final CountDownLatch polling = new CountDownLatch(count);
        final List<CompletableFuture<Long>> done = new ArrayList<>();
        for (int c = 0; c < count; c++) {
            final CompletableFuture<Long> finished = new CompletableFuture<>();
            done.add(finished);
            final String clientId = "bench-fanout-" + c;
            Thread.ofPlatform().name(clientId).start(() -> {
                try (ConsumerClient consumer = context.library().consumer(context.settings(), clientId)) {
                    final long[] seen = new long[1];
                    final ConsumerClient.RecordSink sink = (size, first) -> seen[0]++;
                    while (!consumer.fetching()) {
                        context.checkDeadline(clientId + " to start fetching");
                        consumer.poll(POLL, sink);
                    }
                    polling.countDown();
                    while (seen[0] < records) {
                        context.checkDeadline(clientId + ": records " + seen[0] + " of " + records);
                        consumer.poll(POLL, sink);
                    }
                    finished.complete(System.nanoTime());
                } catch (final RuntimeException e) {
                    polling.countDown();
                    finished.completeExceptionally(e);
                }
            });
        }
        if (!polling.await(context.remaining().toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("consumers did not start polling before the deadline");
        }
        final byte[] value = context.value();
        context.beginPhase();
        final long start = System.nanoTime();
        final long produced;
        try (ProducerClient producer = context.library().producer(context.settings(), "bench-fanout-producer")) {
            for (long i = 0; i < records; i++) {
                producer.send(value);
            }
            producer.flush();
            produced = System.nanoTime();
            producer.checkDelivered();
        }
        long last = start;
        for (final CompletableFuture<Long> finished : done) {
            last = Math.max(last, finished.get(context.remaining().toMillis(), TimeUnit.MILLISECONDS));
        }
        context.endPhase();
        final double seconds = (last - start) / 1e9;
        final Map<String, Object> result = new LinkedHashMap<>();
        result.put("consumers", count);
        result.put("records", records);
        result.put("record_bytes", context.recordBytes());
        result.put("seconds", seconds);
        result.put("produce_seconds", (produced - start) / 1e9);
        result.put("aggregate_records_per_s", count * records / seconds);
        result.put("aggregate_mb_per_s", count * records * (double) context.recordBytes() / seconds / 1e6);
        return result;
    }
}
