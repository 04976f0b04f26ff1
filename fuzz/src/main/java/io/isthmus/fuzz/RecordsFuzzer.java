package io.isthmus.fuzz;

import java.nio.ByteBuffer;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * The record bytes of a Produce (or any RECORDS field): valid RecordBatch v2 batches built by kafka-clients, plain,
 * compressed, idempotent or transactional, often damaged afterwards (bits flipped, cut short, a header field set to an
 * edge value), or plain garbage. The broker must append the valid ones and answer the rest with an error, never die.
 */
final class RecordsFuzzer {
    /** Header fields worth lying in: offsets into a RecordBatch v2 header (Kafka's DefaultRecordBatch layout). */
    private static final int[] HEADER_INT_FIELDS = {
        8, // batch length
        12, // partition leader epoch
        17, // CRC
        23, // last offset delta
        43, // producer id (its high half)
        53, // base sequence
        57 // record count
    };

    private static final Compression[] COMPRESSIONS = {
        Compression.NONE,
        Compression.NONE,
        Compression.gzip().build(),
        Compression.lz4().build(),
        Compression.zstd().build(),
        Compression.snappy().build()
    };

    private final HostileValues values;

    RecordsFuzzer(final HostileValues values) {
        this.values = values;
    }

    /** Record bytes, or null for a null RECORDS field. */
    byte[] next() {
        return switch (values.nextInt(10)) {
            case 0 -> null;
            case 1 -> values.someBytes(100);
            case 2, 3, 4 -> batch();
            default -> damage(batch());
        };
    }

    private byte[] batch() {
        final Compression compression = COMPRESSIONS[values.nextInt(COMPRESSIONS.length)];
        final boolean idempotent = values.chance(0.3);
        final boolean transactional = idempotent && values.chance(0.3);
        final ByteBuffer buffer = ByteBuffer.allocate(4096);
        final MemoryRecordsBuilder builder = MemoryRecords.builder(
                buffer,
                RecordBatch.CURRENT_MAGIC_VALUE,
                compression,
                TimestampType.CREATE_TIME,
                0L,
                System.currentTimeMillis(),
                idempotent ? values.random().nextLong(1_000_000) : RecordBatch.NO_PRODUCER_ID,
                idempotent ? (short) values.nextInt(3) : RecordBatch.NO_PRODUCER_EPOCH,
                idempotent ? values.nextInt(5) : RecordBatch.NO_SEQUENCE,
                transactional,
                false,
                RecordBatch.NO_PARTITION_LEADER_EPOCH);
        final int records = 1 + values.nextInt(5);
        for (int i = 0; i < records; i++) {
            builder.append(
                    values.chance(0.8)
                            ? System.currentTimeMillis()
                            : values.chance(0.5) ? -1L : values.random().nextLong(Long.MAX_VALUE),
                    values.chance(0.3) ? null : values.someBytes(16),
                    values.someBytes(64));
        }
        final ByteBuffer built = builder.build().buffer();
        final byte[] bytes = new byte[built.remaining()];
        built.get(bytes);
        return bytes;
    }

    private byte[] damage(final byte[] batch) {
        switch (values.nextInt(5)) {
            case 0 -> {
                final int at = values.nextInt(batch.length);
                batch[at] ^= (byte) (1 << values.nextInt(8));
                return batch;
            }
            case 1 -> {
                return java.util.Arrays.copyOf(batch, values.nextInt(batch.length));
            }
            case 2 -> {
                final int at = HEADER_INT_FIELDS[values.nextInt(HEADER_INT_FIELDS.length)];
                ByteBuffer.wrap(batch).putInt(at, values.anInt());
                return batch;
            }
            case 3 -> {
                batch[21] = (byte) values.nextInt(256); // attributes: codec, timestamp type, transactional, control
                return batch;
            }
            default -> {
                final byte[] doubled = java.util.Arrays.copyOf(batch, batch.length * 2);
                System.arraycopy(batch, 0, doubled, batch.length, batch.length);
                return doubled;
            }
        }
    }
}
