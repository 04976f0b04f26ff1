package io.isthmus.broker.testkit;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/** Record batches built by kafka-clients itself, as a Kafka producer would send them. */
public final class KafkaBatches {
    private KafkaBatches() {}

    /** One batch of a non-idempotent producer; values are {@code prefix-0}, {@code prefix-1}, ... */
    public static MemoryRecords plain(final String prefix, final long... timestamps) {
        return build(
                RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE, prefix, timestamps);
    }

    /** One batch of {@code records} records, all at {@code timestamp}. */
    public static MemoryRecords plain(final String prefix, final int records, final long timestamp) {
        final long[] timestamps = new long[records];
        java.util.Arrays.fill(timestamps, timestamp);
        return plain(prefix, timestamps);
    }

    /** One batch of an idempotent producer with {@code records} records from {@code baseSequence}. */
    public static MemoryRecords idempotent(
            final long producerId, final short epoch, final int baseSequence, final int records) {
        final long[] timestamps = new long[records];
        java.util.Arrays.fill(timestamps, 1_700_000_000_000L);
        return build(producerId, epoch, baseSequence, "seq-" + baseSequence, timestamps);
    }

    private static MemoryRecords build(
            final long producerId,
            final short epoch,
            final int baseSequence,
            final String prefix,
            final long[] timestamps) {
        final ByteBuffer buffer = ByteBuffer.allocate(256 + timestamps.length * 64);
        final MemoryRecordsBuilder builder = MemoryRecords.builder(
                buffer,
                RecordBatch.CURRENT_MAGIC_VALUE,
                Compression.NONE,
                TimestampType.CREATE_TIME,
                0L,
                RecordBatch.NO_TIMESTAMP,
                producerId,
                epoch,
                baseSequence);
        for (int i = 0; i < timestamps.length; i++) {
            builder.append(
                    timestamps[i],
                    ("key-" + i).getBytes(StandardCharsets.UTF_8),
                    (prefix + "-" + i).getBytes(StandardCharsets.UTF_8));
        }
        return builder.build();
    }

    /** Several batches back to back, as one produce request carries them. */
    public static MemoryRecords concat(final MemoryRecords... parts) {
        int size = 0;
        for (final MemoryRecords part : parts) {
            size += part.sizeInBytes();
        }
        final ByteBuffer buffer = ByteBuffer.allocate(size);
        for (final MemoryRecords part : parts) {
            buffer.put(part.buffer());
        }
        buffer.flip();
        return MemoryRecords.readableRecords(buffer);
    }

    public static MemorySegment segment(final MemoryRecords records) {
        return MemorySegment.ofBuffer(records.buffer());
    }

    public static byte[] bytes(final MemoryRecords records) {
        final ByteBuffer buffer = records.buffer();
        final byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }

    /** Values of every record, in order, after checking every batch's CRC with Kafka's code. */
    public static List<String> values(final MemorySegment bytes) {
        return values(MemoryRecords.readableRecords(ByteBuffer.wrap(bytes.toArray(ValueLayout.JAVA_BYTE))));
    }

    public static List<String> values(final MemoryRecords records) {
        final List<String> values = new ArrayList<>();
        for (final RecordBatch batch : records.batches()) {
            batch.ensureValid();
            for (final Record record : batch) {
                values.add(StandardCharsets.UTF_8.decode(record.value()).toString());
            }
        }
        return values;
    }

    /** Offsets of every record, in order. */
    public static List<Long> offsets(final MemorySegment bytes) {
        final List<Long> offsets = new ArrayList<>();
        for (final RecordBatch batch : MemoryRecords.readableRecords(
                        ByteBuffer.wrap(bytes.toArray(ValueLayout.JAVA_BYTE)))
                .batches()) {
            for (final Record record : batch) {
                offsets.add(record.offset());
            }
        }
        return offsets;
    }
}
