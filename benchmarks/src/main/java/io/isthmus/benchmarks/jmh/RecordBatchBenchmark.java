package io.isthmus.benchmarks.jmh;

import io.isthmus.protocol.record.Record;
import io.isthmus.protocol.record.RecordBatch;
import io.isthmus.protocol.record.RecordBatchBuilder;
import io.isthmus.protocol.record.RecordHandler;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The record layer on its own: encoding an uncompressed batch of {@value #RECORDS} records with {@link
 * RecordBatchBuilder} (CRC included), and iterating one with {@link RecordBatch#forEachRecord} (CRC not checked, as a
 * consumer that trusts the broker's validation). Scores are records per second.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class RecordBatchBenchmark {
    static final int RECORDS = 64;

    @Param({"100", "1024"})
    public int recordBytes;

    private Arena arena;
    private MemorySegment target;
    private MemorySegment value;
    private MemorySegment encoded;
    private RecordBatchBuilder builder;
    private final RecordBatch batch = new RecordBatch();
    private ValueSizeSum sum;

    @Setup(Level.Trial)
    public void prepare(final Blackhole blackhole) {
        arena = Arena.ofShared();
        final long capacity = 61L + RECORDS * (recordBytes + 32L);
        target = arena.allocate(capacity, 8);
        value = arena.allocate(recordBytes);
        value.fill((byte) 0x42);
        builder = new RecordBatchBuilder();
        encoded = arena.allocate(capacity, 8);
        builder.begin(encoded, 0, capacity, 0, 1_700_000_000_000L);
        for (int i = 0; i < RECORDS; i++) {
            builder.append(1_700_000_000_000L + i, null, value);
        }
        builder.finish();
        sum = new ValueSizeSum(blackhole);
    }

    @Benchmark
    @OperationsPerInvocation(RECORDS)
    public int encode() {
        final long timestamp = 1_700_000_000_000L;
        builder.begin(target, 0, target.byteSize(), 0, timestamp);
        for (int i = 0; i < RECORDS; i++) {
            builder.append(timestamp + i, null, value);
        }
        return builder.finish();
    }

    @Benchmark
    @OperationsPerInvocation(RECORDS)
    public int iterate() {
        return batch.wrap(encoded, 0).forEachRecord(sum);
    }

    @TearDown(Level.Trial)
    public void free() {
        builder.close();
        arena.close();
    }

    /** Touches every record's value size and offset so the iteration cannot be optimised away. */
    private static final class ValueSizeSum implements RecordHandler {
        private final Blackhole blackhole;

        ValueSizeSum(final Blackhole blackhole) {
            this.blackhole = blackhole;
        }

        @Override
        public void onRecord(final Record record) {
            blackhole.consume(record.valueSize());
            blackhole.consume(record.offset());
        }
    }
}
