package io.isthmus.benchmarks.harness.client;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Produce throughput: one producer sends {@code records} records as fast as it can with the settings' batching, after
 * a warmup that also loads metadata: rounds of a tenth as many records (at most 100,000), each ending in {@code
 * flush()} (with transactions: in a commit), until the context's warmup has gone by, one round at least (a preload
 * asks for no more: the topic then holds exactly its records and one round). Measured from the first send to the end
 * of {@code flush()}: every record acknowledged. Sends go through {@link ProducerClient#send(byte[])}, each library's
 * cheapest completion path; heap bytes are counted on the sending thread and on all threads after the warmup.
 *
 * <p>With {@link ClientSettings#transactional()} settings every {@link ClientSettings#transactionRecords()} sends are
 * one transaction (begin, the sends, commit; the last one of each warmup round and of the measured records may be
 * shorter), the warmup's included, and the clock stops when the last commit returned: every record acknowledged and
 * committed. Each commit's time is recorded too.
 */
public final class ProduceThroughputWorkload implements Workload {
    @Override
    public Map<String, Object> run(final WorkloadContext context) throws Exception {
        final byte[] value = context.value();
        final long warmupRound = Math.min(100_000, Math.max(1, context.records() / 10));
        final int perTransaction = context.settings().transactionRecords();
        final LatencyRecorder commits = new LatencyRecorder();
        final Map<String, Object> result = new LinkedHashMap<>();
        try (ProducerClient producer = context.library().producer(context.settings(), "bench-producer")) {
            final long warmupStart = System.nanoTime();
            long warmup = 0;
            do {
                sendAll(producer, value, warmupRound, perTransaction, new LatencyRecorder());
                warmup += warmupRound;
            } while (System.nanoTime() - warmupStart < context.warmup().toNanos());
            context.beginPhase();
            final HeapAllocation allocation = HeapAllocation.start();
            final long start = System.nanoTime();
            final long transactions = sendAll(producer, value, context.records(), perTransaction, commits);
            final long nanos = System.nanoTime() - start;
            final long threadBytes = allocation.threadBytes();
            final long totalBytes = allocation.totalBytes();
            context.endPhase();
            producer.checkDelivered();
            Throughput.put(result, context.records(), context.recordBytes(), nanos);
            result.put("records_total", warmup + context.records());
            result.put("heap_bytes_per_record_send_thread", (double) threadBytes / context.records());
            result.put("heap_bytes_per_record_all_threads", (double) totalBytes / context.records());
            if (perTransaction > 0) {
                final Map<String, Object> commitTimes = commits.summary();
                result.put("transaction_records", perTransaction);
                result.put("transactions", transactions);
                result.put("transactions_per_s", transactions / (nanos / 1e9));
                result.put("commit_p50_us", commitTimes.get("p50_us"));
                result.put("commit_p99_us", commitTimes.get("p99_us"));
                result.put("commit_mean_us", commitTimes.get("mean_us"));
            }
        }
        return result;
    }

    /**
     * Sends {@code count} records and waits until all are acknowledged: without transactions ({@code perTransaction}
     * 0) with one {@code flush()} at the end; with them, a committed transaction per {@code perTransaction} records,
     * each commit's time recorded in {@code commits}. Returns the number of transactions.
     */
    private static long sendAll(
            final ProducerClient producer,
            final byte[] value,
            final long count,
            final int perTransaction,
            final LatencyRecorder commits) {
        if (perTransaction <= 0) {
            for (long i = 0; i < count; i++) {
                producer.send(value);
            }
            producer.flush();
            return 0;
        }
        long transactions = 0;
        long sent = 0;
        while (sent < count) {
            final long end = Math.min(count, sent + perTransaction);
            producer.beginTransaction();
            for (; sent < end; sent++) {
                producer.send(value);
            }
            final long commitStart = System.nanoTime();
            producer.commitTransaction();
            commits.record(System.nanoTime() - commitStart);
            transactions++;
        }
        return transactions;
    }
}
