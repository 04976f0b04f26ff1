package io.isthmus.protocol.record;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Steady-state iteration and building of uncompressed batches allocate (nearly) nothing: measured with the
 * per-thread allocation counter after warm-up, amortised per record.
 */
class ZeroAllocationTest {
    private static final int RECORDS = 10_000;
    private static final int WARMUP_ROUNDS = 300;
    private static final int MEASURED_ROUNDS = 50;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private static Arena arena;
    private static MemorySegment buffer;
    private static MemorySegment key;
    private static MemorySegment value;
    private static byte[] keyArray;
    private static byte[] valueArray;
    private static HeaderList headers;

    @BeforeAll
    static void setUp() {
        assertThat(THREADS.isThreadAllocatedMemorySupported()).isTrue();
        THREADS.setThreadAllocatedMemoryEnabled(true);
        arena = Arena.ofShared();
        buffer = arena.allocate(4 << 20, 8);
        key = arena.allocate(16);
        value = arena.allocate(100);
        for (int i = 0; i < 100; i++) {
            value.set(ValueLayout.JAVA_BYTE, i, (byte) i);
        }
        keyArray = new byte[16];
        valueArray = new byte[100];
        headers = new HeaderList()
                .add(arena.allocate(8).fill((byte) 'h'), arena.allocate(4).fill((byte) 1));
    }

    @AfterAll
    static void tearDown() {
        arena.close();
    }

    /** Consumes records the way an application would: every field, the value bytes, the headers. */
    static final class Consumer implements RecordHandler, HeaderHandler {
        long checksum;

        @Override
        public void onRecord(final Record record) {
            checksum += record.offset() + record.timestamp() + record.keySize() + record.valueSize();
            checksum += record.segment().get(ValueLayout.JAVA_BYTE, record.valueOffset() + record.valueSize() - 1);
            record.forEachHeader(this);
        }

        @Override
        public void onHeader(final Header header) {
            checksum += header.keySize() + header.valueSize();
        }
    }

    private static int build(final RecordBatchBuilder builder, final boolean arrays) {
        builder.begin(buffer, 0, buffer.byteSize(), 1000L, 1_700_000_000_000L);
        for (int i = 0; i < RECORDS; i++) {
            if (arrays) {
                builder.append(1_700_000_000_000L + i, keyArray, valueArray, headers);
            } else {
                builder.append(1_700_000_000_000L + i, key, value, headers);
            }
        }
        return builder.finish();
    }

    @Test
    void shouldAllocateNothingPerRecordWhenIterating() {
        final int size;
        try (RecordBatchBuilder builder = new RecordBatchBuilder()) {
            size = build(builder, false);
        }
        RecordBatchValidator.validate(buffer, 0, size);
        final RecordBatch batch = new RecordBatch();
        final Consumer consumer = new Consumer();
        for (int i = 0; i < WARMUP_ROUNDS; i++) {
            assertThat(batch.wrap(buffer, 0).forEachRecord(consumer)).isEqualTo(RECORDS);
        }
        final long before = THREADS.getCurrentThreadAllocatedBytes();
        int seen = 0;
        for (int i = 0; i < MEASURED_ROUNDS; i++) {
            seen += batch.wrap(buffer, 0).forEachRecord(consumer);
        }
        final long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
        assertThat(seen).isEqualTo(RECORDS * MEASURED_ROUNDS);
        assertThat((double) allocated / seen)
                .as("bytes allocated per record iterated (%d bytes in total)", allocated)
                .isLessThan(1.0);
        assertThat(consumer.checksum).isNotZero();
    }

    @Test
    void shouldAllocateNothingPerRecordWithCursor() {
        final int size;
        try (RecordBatchBuilder builder = new RecordBatchBuilder()) {
            size = build(builder, true);
        }
        assertThat(size).isPositive();
        final RecordBatch batch = new RecordBatch();
        long sum = 0;
        for (int i = 0; i < WARMUP_ROUNDS; i++) {
            final RecordCursor cursor = batch.wrap(buffer, 0).cursor();
            while (cursor.next()) {
                sum += cursor.record().valueSize();
            }
        }
        final long before = THREADS.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < MEASURED_ROUNDS; i++) {
            final RecordCursor cursor = batch.wrap(buffer, 0).cursor();
            while (cursor.next()) {
                sum += cursor.record().offset();
            }
        }
        final long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
        assertThat((double) allocated / (RECORDS * MEASURED_ROUNDS))
                .as("bytes per record (%d in total)", allocated)
                .isLessThan(1.0);
        assertThat(sum).isPositive();
    }

    @Test
    void shouldAllocateNothingPerRecordWhenBuilding() {
        try (RecordBatchBuilder builder = new RecordBatchBuilder()) {
            for (final boolean arrays : new boolean[] {false, true}) {
                for (int i = 0; i < WARMUP_ROUNDS; i++) {
                    build(builder, arrays);
                }
                final long before = THREADS.getCurrentThreadAllocatedBytes();
                int size = 0;
                for (int i = 0; i < MEASURED_ROUNDS; i++) {
                    size = build(builder, arrays);
                }
                final long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
                assertThat((double) allocated / (RECORDS * MEASURED_ROUNDS))
                        .as("bytes per record appended (%s, %d in total)", arrays ? "byte[]" : "segments", allocated)
                        .isLessThan(1.0);
                RecordBatchValidator.validate(buffer, 0, size);
            }
        }
    }
}
