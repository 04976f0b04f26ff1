package io.isthmus.benchmarks.jmh;

import io.isthmus.protocol.record.Crc32c;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * CRC-32C of a batch-sized direct buffer: the project's {@link Crc32c} over a {@link MemorySegment} view against the
 * JDK's {@link CRC32C} fed the {@link ByteBuffer} directly. The difference is the cost of the segment slice and buffer
 * view {@link Crc32c} creates per call. Score is checksums per second.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class Crc32cBenchmark {
    @Param({"1024", "65536"})
    public int bytes;

    private ByteBuffer buffer;
    private MemorySegment segment;
    private final CRC32C jdk = new CRC32C();

    @Setup(Level.Trial)
    public void fill() {
        buffer = ByteBuffer.allocateDirect(bytes);
        final byte[] random = new byte[bytes];
        ThreadLocalRandom.current().nextBytes(random);
        buffer.put(random).flip();
        segment = MemorySegment.ofBuffer(buffer);
    }

    @Benchmark
    public long isthmusCrc32c() {
        return Crc32c.compute(segment, 0, bytes);
    }

    @Benchmark
    public long jdkCrc32c() {
        jdk.reset();
        jdk.update(buffer);
        buffer.rewind();
        return jdk.getValue();
    }
}
