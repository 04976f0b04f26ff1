package io.isthmus.broker.rdma;

import io.isthmus.protocol.record.RecordBatchDescriptor;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;

/** RecordBatch v2 bytes built with Kafka's own classes, as an RDMA producer would write them. */
final class RdmaBatches {
    private RdmaBatches() {}

    /** One uncompressed batch of {@code records} records whose values are {@code valueBytes} long. */
    static byte[] batch(final String prefix, final int records, final int valueBytes) {
        final ByteBuffer buffer = ByteBuffer.allocate(256 + records * (valueBytes + 64));
        final MemoryRecordsBuilder builder =
                MemoryRecords.builder(buffer, Compression.NONE, TimestampType.CREATE_TIME, 0L);
        final byte[] padding = new byte[Math.max(0, valueBytes - prefix.length() - 8)];
        Arrays.fill(padding, (byte) 'x');
        for (int i = 0; i < records; i++) {
            final String value =
                    prefix + "-" + String.format("%06d", i) + new String(padding, StandardCharsets.US_ASCII);
            builder.append(1_700_000_000_000L + i, null, value.getBytes(StandardCharsets.US_ASCII));
        }
        final ByteBuffer built = builder.build().buffer();
        final byte[] bytes = new byte[built.remaining()];
        built.get(bytes);
        return bytes;
    }

    /** {@code batch} as the log stores it: base offset and leader epoch rewritten in place (both outside the CRC). */
    static byte[] asCommitted(final byte[] batch, final long baseOffset, final int leaderEpoch) {
        final byte[] copy = batch.clone();
        ByteBuffer.wrap(copy).putLong(RecordBatchDescriptor.BASE_OFFSET_OFFSET, baseOffset);
        ByteBuffer.wrap(copy).putInt(RecordBatchDescriptor.PARTITION_LEADER_EPOCH_OFFSET, leaderEpoch);
        return copy;
    }

    /** {@code batch} with one byte of its records flipped: the CRC no longer matches. */
    static byte[] corrupted(final byte[] batch) {
        final byte[] copy = batch.clone();
        copy[copy.length - 3] ^= 0x5a;
        return copy;
    }
}
