package io.isthmus.benchmarks.jmh;

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
 * The physical limit of {@link LogAppendBenchmark}: {@link MemorySegment#copy} of a batch-sized block from one
 * off-heap segment into a 256 MiB off-heap ring at advancing positions, as the append copies into a segment's tail.
 * The ring is far larger than the last-level cache, so this is memory bandwidth, not cache bandwidth, just as the
 * append's destination is. Score is copies per second; bytes per second is the score times {@code batchBytes}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class MemcpyBenchmark {
    static final long RING_BYTES = 256L << 20;

    @Param({"1024", "65536"})
    public int batchBytes;

    private Arena arena;
    private MemorySegment source;
    private MemorySegment ring;
    private long position;

    @Setup(Level.Trial)
    public void allocate() {
        arena = Arena.ofShared();
        source = arena.allocate(batchBytes, 64);
        source.fill((byte) 0x5A);
        ring = arena.allocate(RING_BYTES, 4096);
        // Touch every page once: this is the pure copy bandwidth. The append also pays the first-touch fault of each
        // fresh segment page (once per 4 KiB); that cost is part of the gap the report's ratio shows.
        ring.fill((byte) 0);
    }

    @Benchmark
    public long copy() {
        long at = position;
        if (at + batchBytes > RING_BYTES) {
            at = 0;
        }
        MemorySegment.copy(source, 0, ring, at, batchBytes);
        position = at + batchBytes;
        return at;
    }

    @TearDown(Level.Trial)
    public void free() {
        arena.close();
    }
}
