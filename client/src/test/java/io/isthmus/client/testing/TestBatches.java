package io.isthmus.client.testing;

import io.isthmus.protocol.record.RecordBatchBuilder;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/** Writes RecordBatch v2 batches for tests: record {@code o} has value {@code "value-<o>"}. */
public final class TestBatches {
    private TestBatches() {}

    /** The value of the record at {@code offset}. */
    public static String value(final long offset) {
        return "value-" + offset;
    }

    /**
     * Writes a batch of {@code records} records from {@code baseOffset} at {@code position} of {@code segment}.
     *
     * @return where the batch ends
     */
    public static long write(
            final MemorySegment segment, final long position, final long baseOffset, final int records) {
        return write(segment, position, baseOffset, records, false);
    }

    /** As {@link #write(MemorySegment, long, long, int)}, as a control batch when {@code control}. */
    public static long write(
            final MemorySegment segment,
            final long position,
            final long baseOffset,
            final int records,
            final boolean control) {
        try (RecordBatchBuilder builder = new RecordBatchBuilder().control(control)) {
            builder.begin(segment, position, segment.byteSize(), baseOffset, 1_000L);
            for (int i = 0; i < records; i++) {
                builder.append(1_000L + i, null, value(baseOffset + i).getBytes(StandardCharsets.UTF_8));
            }
            return position + builder.finish();
        }
    }

    /** As {@link #write(MemorySegment, long, long, int)}, as a transactional batch of {@code producerId}. */
    public static long writeTransactional(
            final MemorySegment segment,
            final long position,
            final long baseOffset,
            final int records,
            final long producerId) {
        try (RecordBatchBuilder builder =
                new RecordBatchBuilder().transactional(true).producer(producerId, (short) 0, (int) baseOffset)) {
            builder.begin(segment, position, segment.byteSize(), baseOffset, 1_000L);
            for (int i = 0; i < records; i++) {
                builder.append(1_000L + i, null, value(baseOffset + i).getBytes(StandardCharsets.UTF_8));
            }
            return position + builder.finish();
        }
    }

    /**
     * Writes the transaction marker a coordinator writes when {@code producerId}'s transaction ends: a transactional
     * control batch of one record whose key is version 0 and type COMMIT (1) or ABORT (0), as Kafka's.
     */
    public static long writeMarker(
            final MemorySegment segment,
            final long position,
            final long offset,
            final long producerId,
            final boolean commit) {
        final byte[] key = {0, 0, 0, (byte) (commit ? 1 : 0)};
        final byte[] value = {0, 0, 0, 0, 0, 0};
        try (RecordBatchBuilder builder =
                new RecordBatchBuilder().transactional(true).control(true).producer(producerId, (short) 0, -1)) {
            builder.begin(segment, position, segment.byteSize(), offset, 1_000L);
            builder.append(1_000L, key, value);
            return position + builder.finish();
        }
    }
}
