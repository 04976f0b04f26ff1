package io.isthmus.benchmarks.jmh;

import io.isthmus.broker.log.LogConfig;
import io.isthmus.broker.log.LogSegment;
import io.isthmus.broker.log.PartitionLog;
import io.isthmus.broker.log.SegmentIdAllocator;
import io.isthmus.broker.log.SegmentPreToucher;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Map;

/**
 * The partition log the append measurements write into ({@link LogAppendBenchmark} under JMH, the bench harness's
 * log-append probe): a scratch directory on tmpfs when there is one, 256 MiB segments, and a retention of two segments
 * applied after every roll, so a run can go on for any time in bounded memory; roll and segment creation are part of
 * the measured cost, amortised as in a real broker.
 */
public final class BenchmarkLog implements AutoCloseable {
    static final int SEGMENT_BYTES = 256 << 20;

    private final Path dir;
    private final SegmentPreToucher preToucher;
    private final PartitionLog log;
    private LogSegment lastActive;

    private BenchmarkLog(final Path dir, final SegmentPreToucher preToucher, final PartitionLog log) {
        this.dir = dir;
        this.preToucher = preToucher;
        this.log = log;
        this.lastActive = log.activeSegment();
    }

    /** A fresh log in a scratch directory named after {@code prefix}, pre-touched {@code preTouchBytes} ahead. */
    public static BenchmarkLog open(final String prefix, final long preTouchBytes) throws IOException {
        final Path dir = BenchmarkBatches.scratchDirectory(prefix);
        final LogConfig config = LogConfig.from(Map.of(
                LogConfig.SEGMENT_BYTES, Integer.toString(SEGMENT_BYTES),
                LogConfig.RETENTION_BYTES, Long.toString(2L * SEGMENT_BYTES)));
        final SegmentPreToucher preToucher = new SegmentPreToucher(preTouchBytes);
        final PartitionLog log = PartitionLog.open(
                dir.resolve("bench-0"), config, new SegmentIdAllocator(), InstantSource.system(), preToucher);
        return new BenchmarkLog(dir, preToucher, log);
    }

    /** The TCP produce path's storage half: {@link PartitionLog#append} of {@code batch}; its last offset. */
    public long append(final MemorySegment batch) {
        final long lastOffset = log.append(batch, 0).lastOffset();
        retainAfterRoll();
        return lastOffset;
    }

    /**
     * The RDMA produce path's: {@link PartitionLog#commitStagedBatch} of {@code batch} as a producer's staging slot,
     * rolling first when it does not fit (what a producer's ROLL_FULL access request does); its last offset.
     */
    public long commitStaged(final MemorySegment batch) {
        if (log.activeSegment().committedPosition() + batch.byteSize()
                > log.activeSegment().capacity()) {
            log.roll();
        }
        final LogSegment active = log.activeSegment();
        final long lastOffset = log.commitStagedBatch(active.id(), active.committedPosition(), batch, 0, false)
                .lastOffset();
        retainAfterRoll();
        return lastOffset;
    }

    private void retainAfterRoll() {
        final LogSegment active = log.activeSegment();
        if (active != lastActive) {
            lastActive = active;
            log.deleteOldSegments();
        }
    }

    /** Closes the log and the pre-toucher and deletes the scratch directory. */
    @Override
    public void close() throws IOException, InterruptedException {
        try {
            log.close();
            preToucher.close();
        } finally {
            BenchmarkBatches.deleteTree(dir);
        }
    }
}
