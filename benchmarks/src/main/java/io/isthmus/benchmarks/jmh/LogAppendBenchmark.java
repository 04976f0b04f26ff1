package io.isthmus.benchmarks.jmh;

import io.isthmus.broker.log.PartitionLog;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
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
 * <p>The log is a {@link BenchmarkLog}: tmpfs, 256 MiB segments, two kept, roll and segment creation part of the
 * measured cost. {@code preTouchBytes} compares
 * appends that fault every fresh page themselves with appends behind the broker's background pre-touch.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class LogAppendBenchmark {
    @Param({"1024", "65536"})
    public int batchBytes;

    /** 0: every page of a fresh segment faults on the append path; 16 MiB: the broker's default pre-touch. */
    @Param({"0", "16777216"})
    public long preTouchBytes;

    private Arena arena;
    private MemorySegment batch;
    private BenchmarkLog log;

    @Setup(Level.Trial)
    public void openLog() throws IOException {
        arena = Arena.ofShared();
        batch = BenchmarkBatches.ofExactSize(arena, batchBytes);
        log = BenchmarkLog.open("isthmus-append-bench", preTouchBytes);
    }

    @Benchmark
    public long append() {
        return log.append(batch);
    }

    @Benchmark
    public long commitStaged() {
        return log.commitStaged(batch);
    }

    @TearDown(Level.Trial)
    public void closeLog() throws IOException, InterruptedException {
        log.close();
        arena.close();
    }
}
