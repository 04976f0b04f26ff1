package io.isthmus.benchmarks.harness;

import io.isthmus.benchmarks.jmh.BenchmarkBatches;
import io.isthmus.benchmarks.jmh.BenchmarkLog;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The isthmus log's append bandwidth in the same run as the memcpy limit: one thread appending valid 64 KiB batches
 * with {@link io.isthmus.broker.log.PartitionLog#append} (CRC-32C and structure validated, copied into the mapped tail,
 * offsets assigned, published) behind the broker's default pre-touch, into the same {@link BenchmarkLog} as {@code
 * LogAppendBenchmark}'s. What that benchmark measures under JMH, short enough for every bench run, so that the log's
 * fraction of memcpy can be followed on the {@code bench:} line.
 */
final class LogAppendProbe {
    static final int BATCH_BYTES = 64 << 10;
    private static final long PRE_TOUCH_BYTES = 16L << 20;
    private static final double WARMUP_SECONDS = 0.5;

    private LogAppendProbe() {}

    /** Bytes per second appended over {@code seconds}, after a warmup. */
    static double measure(final double seconds) throws IOException, InterruptedException {
        try (Arena arena = Arena.ofConfined();
                BenchmarkLog log = BenchmarkLog.open("isthmus-append-probe", PRE_TOUCH_BYTES)) {
            final MemorySegment batch = BenchmarkBatches.ofExactSize(arena, BATCH_BYTES);
            appendFor(log, batch, WARMUP_SECONDS);
            return appendFor(log, batch, seconds);
        }
    }

    private static double appendFor(final BenchmarkLog log, final MemorySegment batch, final double seconds) {
        final long start = System.nanoTime();
        final long until = start + (long) (seconds * 1e9);
        long appended = 0;
        long now;
        do {
            for (int i = 0; i < 16; i++) {
                log.append(batch);
                appended += batch.byteSize();
            }
            now = System.nanoTime();
        } while (now < until);
        return appended / ((now - start) / 1e9);
    }
}
