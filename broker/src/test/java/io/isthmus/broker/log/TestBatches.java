package io.isthmus.broker.log;

import io.isthmus.protocol.record.RecordBatchDescriptor;
import java.lang.foreign.MemorySegment;
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

/** Builds RecordBatch v2 bytes with Kafka's own classes and reads them back, for the log tests. */
final class TestBatches {
    private TestBatches() {}

    /**
     * One uncompressed batch of {@code records} records whose values are {@code "value-" + (firstValueIndex + i)},
     * all with {@code timestamp}. The base offset is 0: the log assigns the real one.
     */
    static byte[] batch(final long firstValueIndex, final int records, final long timestamp) {
        final ByteBuffer buffer = ByteBuffer.allocate(256 + records * 64);
        final MemoryRecordsBuilder builder =
                MemoryRecords.builder(buffer, Compression.NONE, TimestampType.CREATE_TIME, 0L);
        for (int i = 0; i < records; i++) {
            builder.append(
                    timestamp,
                    ("key-" + (firstValueIndex + i)).getBytes(StandardCharsets.UTF_8),
                    ("value-" + (firstValueIndex + i)).getBytes(StandardCharsets.UTF_8));
        }
        final ByteBuffer built = builder.build().buffer();
        final byte[] bytes = new byte[built.remaining()];
        built.get(bytes);
        return bytes;
    }

    /** One batch compressed with {@code compression} holding one record whose value is {@code valueBytes} zeros. */
    static byte[] compressedZeros(final Compression compression, final int valueBytes, final long timestamp) {
        final ByteBuffer buffer = ByteBuffer.allocate(valueBytes + 1024);
        final MemoryRecordsBuilder builder = MemoryRecords.builder(buffer, compression, TimestampType.CREATE_TIME, 0L);
        builder.append(timestamp, null, new byte[valueBytes]);
        final ByteBuffer built = builder.build().buffer();
        final byte[] bytes = new byte[built.remaining()];
        built.get(bytes);
        return bytes;
    }

    static MemorySegment segment(final byte[] bytes) {
        return MemorySegment.ofArray(bytes);
    }

    /** Values of every record in {@code bytes}, in order, after checking each batch's CRC with Kafka's code. */
    static List<String> values(final MemorySegment bytes) {
        final ByteBuffer buffer = ByteBuffer.wrap(bytes.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        final List<String> values = new ArrayList<>();
        for (final RecordBatch batch : MemoryRecords.readableRecords(buffer).batches()) {
            batch.ensureValid();
            for (final Record record : batch) {
                values.add(StandardCharsets.UTF_8.decode(record.value()).toString());
            }
        }
        return values;
    }

    /** Offsets of every record in {@code bytes}, in order. */
    static List<Long> offsets(final MemorySegment bytes) {
        final ByteBuffer buffer = ByteBuffer.wrap(bytes.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        final List<Long> offsets = new ArrayList<>();
        for (final RecordBatch batch : MemoryRecords.readableRecords(buffer).batches()) {
            for (final Record record : batch) {
                offsets.add(record.offset());
            }
        }
        return offsets;
    }

    /** True when every batch in {@code bytes} is whole and its stored CRC-32C matches. */
    static boolean allCrcsValid(final MemorySegment bytes) {
        long pos = 0;
        while (pos < bytes.byteSize()) {
            if (bytes.byteSize() - pos < RecordBatchDescriptor.HEADER_LENGTH) {
                return false;
            }
            final long size = RecordBatchDescriptor.batchSize(bytes, pos);
            if (pos + size > bytes.byteSize()
                    || RecordBatchDescriptor.computeCrc(bytes, pos) != RecordBatchDescriptor.storedCrc(bytes, pos)) {
                return false;
            }
            pos += size;
        }
        return true;
    }
}
