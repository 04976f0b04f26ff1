package io.isthmus.benchmarks.jmh;

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
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The produce paths' storage half. {@link #append}: the TCP path, {@link PartitionLog#append} of one valid batch
 * (validate CRC-32C and structure, copy into the mapped tail, assign offsets, publish). {@link #commitStaged}: the RDMA
 * path, {@link PartitionLog#commitStagedBatch} of the same batch from a producer's staging slot (copy to the tail,
 * validate the copy, assign offsets, publish). Score is batches per second; bytes per second is the score
 * times {@code batchBytes} (batches are exactly that size), and {@link JmhMain} divides it by {@link MemcpyBenchmark}'s
 * bandwidth for the same size.
 *
 * <p>The log lives on tmpfs when there is one, with 256 MiB segments and a retention of two segments that this
 * benchmark applies itself whenever a segment rolls, so the run can go on for any time in bounded memory; roll and
 * segment creation are part of the measured cost, amortised as in a real broker. {@code preTouchBytes} compares
 * appends that fault every fresh page themselves with appends behind the broker's background pre-touch.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class LogAppendBenchmark {
    static final int SEGMENT_BYTES = 256 << 20;

    @Param({"1024", "65536"})
    public int batchBytes;

    /** 0: every page of a fresh segment faults on the append path; 16 MiB: the broker's default pre-touch. */
    @Param({"0", "16777216"})
    public long preTouchBytes;

    private SegmentPreToucher preToucher;

    private Arena arena;
    private MemorySegment batch;
    private Path dir;
    private PartitionLog log;
    private LogSegment lastActive;

    @Setup(Level.Trial)
    public void openLog() throws IOException {
        arena = Arena.ofShared();
        batch = BenchmarkBatches.ofExactSize(arena, batchBytes);
        dir = BenchmarkBatches.scratchDirectory("isthmus-append-bench");
        final LogConfig config = LogConfig.from(Map.of(
                LogConfig.SEGMENT_BYTES, Integer.toString(SEGMENT_BYTES),
                LogConfig.RETENTION_BYTES, Long.toString(2L * SEGMENT_BYTES)));
        preToucher = new SegmentPreToucher(preTouchBytes);
        log = PartitionLog.open(
                dir.resolve("bench-0"), config, new SegmentIdAllocator(), InstantSource.system(), preToucher);
        lastActive = log.activeSegment();
    }

    @Benchmark
    public long append() {
        final long lastOffset = log.append(batch, 0).lastOffset();
        final LogSegment active = log.activeSegment();
        if (active != lastActive) {
            lastActive = active;
            log.deleteOldSegments();
        }
        return lastOffset;
    }

    @Benchmark
    public long commitStaged() {
        LogSegment active = log.activeSegment();
        if (active.committedPosition() + batchBytes > active.capacity()) {
            log.roll(); // what a producer's ROLL_FULL access request does
            log.deleteOldSegments();
            active = log.activeSegment();
        }
        lastActive = active;
        return log.commitStagedBatch(active.id(), active.committedPosition(), batch, 0, false)
                .lastOffset();
    }

    @TearDown(Level.Trial)
    public void closeLog() throws IOException, InterruptedException {
        log.close();
        preToucher.close();
        arena.close();
        BenchmarkBatches.deleteTree(dir);
    }
}
