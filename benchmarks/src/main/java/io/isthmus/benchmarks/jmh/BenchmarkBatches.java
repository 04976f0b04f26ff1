package io.isthmus.benchmarks.jmh;

import io.isthmus.protocol.record.RecordBatchBuilder;
import io.isthmus.protocol.record.RecordBatchDescriptor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Valid RecordBatch v2 batches of an exact size, built once per benchmark trial with the project's own builder, and
 * the scratch directories the log benchmarks write into. Public for the harness's log-append probe, which appends
 * such batches.
 */
public final class BenchmarkBatches {
    /** Value size of the records that fill a batch: the harness's smallest record size. */
    static final int FILL_VALUE_BYTES = 100;

    private BenchmarkBatches() {}

    /**
     * A batch of exactly {@code batchBytes} bytes in {@code arena}: 100-byte-value records, the last one sized so that
     * the batch ends exactly at the target (so bytes per second are ops per second times the target).
     */
    public static MemorySegment ofExactSize(final Arena arena, final int batchBytes) {
        final MemorySegment target = arena.allocate(batchBytes, 8);
        final byte[] fill = new byte[FILL_VALUE_BYTES];
        final long timestamp = System.currentTimeMillis();
        try (RecordBatchBuilder builder = new RecordBatchBuilder()) {
            builder.begin(target, 0, batchBytes, 0, timestamp);
            int offsetDelta = 0;
            while (true) {
                final long remaining = batchBytes - builder.estimatedSizeInBytes();
                final int next = RecordBatchBuilder.sizeOfRecord(offsetDelta, 0, -1, FILL_VALUE_BYTES, null);
                // Stop filling while the rest can still hold one padding record of at least one more fill record.
                if (remaining < 2L * next) {
                    break;
                }
                builder.append(timestamp, null, fill);
                offsetDelta++;
            }
            final long remaining = batchBytes - builder.estimatedSizeInBytes();
            final int padValue = paddingValueSize(offsetDelta, remaining, batchBytes);
            builder.append(timestamp, null, new byte[padValue]);
            final int size = builder.finish();
            if (size != batchBytes) {
                throw new IllegalStateException("batch size mismatch: target=" + batchBytes + " built=" + size);
            }
        }
        return target;
    }

    private static int paddingValueSize(final int offsetDelta, final long remaining, final int batchBytes) {
        for (long value = remaining; value >= 0; value--) {
            if (RecordBatchBuilder.sizeOfRecord(offsetDelta, 0, -1, (int) value, null) == remaining) {
                return (int) value;
            }
        }
        throw new IllegalStateException("no record fills a batch exactly: batchBytes=" + batchBytes + " remaining="
                + remaining + " header=" + RecordBatchDescriptor.RECORDS_OFFSET);
    }

    /** A scratch directory on tmpfs when there is one, so that page-cache writeback of a disk never interferes. */
    static Path scratchDirectory(final String prefix) throws java.io.IOException {
        final Path shm = Path.of("/dev/shm");
        if (Files.isDirectory(shm) && Files.isWritable(shm)) {
            return Files.createTempDirectory(shm, prefix);
        }
        return Files.createTempDirectory(prefix);
    }

    /** Deletes a directory tree (benchmark scratch only). */
    static void deleteTree(final Path root) throws java.io.IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (var paths = Files.walk(root)) {
            for (final Path path :
                    paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
