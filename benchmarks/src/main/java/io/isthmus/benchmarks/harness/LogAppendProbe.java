package io.isthmus.benchmarks.harness;

import io.isthmus.benchmarks.jmh.BenchmarkBatches;
import io.isthmus.broker.log.LogConfig;
import io.isthmus.broker.log.LogSegment;
import io.isthmus.broker.log.PartitionLog;
import io.isthmus.broker.log.SegmentIdAllocator;
import io.isthmus.broker.log.SegmentPreToucher;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Map;

/**
 * The isthmus log's append bandwidth in the same run as the memcpy limit: one thread appending valid 64 KiB batches
 * with {@link PartitionLog#append} (CRC-32C and structure validated, copied into the mapped tail, offsets assigned,
 * published) behind the broker's default pre-touch, on tmpfs where there is one, keeping two 256 MiB segments. What
 * {@code LogAppendBenchmark} measures under JMH, short enough for every bench run, so that the log's fraction of memcpy
 * can be followed on the {@code bench:} line.
 */
final class LogAppendProbe {
    static final int BATCH_BYTES = 64 << 10;
    private static final int SEGMENT_BYTES = 256 << 20;
    private static final long PRE_TOUCH_BYTES = 16L << 20;
    private static final double WARMUP_SECONDS = 0.5;

    private LogAppendProbe() {}

    /** Bytes per second appended over {@code seconds}, after a warmup. */
    static double measure(final double seconds) throws IOException, InterruptedException {
        final Path dir = BenchmarkBatches.scratchDirectory("isthmus-append-probe");
        try (Arena arena = Arena.ofConfined();
                SegmentPreToucher preToucher = new SegmentPreToucher(PRE_TOUCH_BYTES)) {
            final MemorySegment batch = BenchmarkBatches.ofExactSize(arena, BATCH_BYTES);
            final LogConfig config = LogConfig.from(Map.of(
                    LogConfig.SEGMENT_BYTES, Integer.toString(SEGMENT_BYTES),
                    LogConfig.RETENTION_BYTES, Long.toString(2L * SEGMENT_BYTES)));
            try (PartitionLog log = PartitionLog.open(
                    dir.resolve("probe-0"), config, new SegmentIdAllocator(), InstantSource.system(), preToucher)) {
                appendFor(log, batch, WARMUP_SECONDS);
                return appendFor(log, batch, seconds);
            }
        } finally {
            BenchmarkBatches.deleteTree(dir);
        }
    }

    private static double appendFor(final PartitionLog log, final MemorySegment batch, final double seconds) {
        final long start = System.nanoTime();
        final long until = start + (long) (seconds * 1e9);
        LogSegment active = log.activeSegment();
        long appended = 0;
        long now;
        do {
            for (int i = 0; i < 16; i++) {
                log.append(batch, 0);
                appended += batch.byteSize();
            }
            if (log.activeSegment() != active) {
                active = log.activeSegment();
                log.deleteOldSegments(); // bounded memory for any duration, as retention does in a broker
            }
            now = System.nanoTime();
        } while (now < until);
        return appended / ((now - start) / 1e9);
    }
}
