package io.isthmus.broker.testkit;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;

/** Transactional batches and transaction markers built with Kafka's own classes, for the broker's tests. */
public final class TransactionalBatches {
    private TransactionalBatches() {}

    /** One transactional batch of {@code records} records with values {@code t<producerId>-<sequence>}. */
    public static MemorySegment transactional(
            final long producerId, final short epoch, final int baseSequence, final int records) {
        final ByteBuffer buffer = ByteBuffer.allocate(256 + records * 64);
        final MemoryRecordsBuilder builder = MemoryRecords.builder(
                buffer,
                RecordBatch.CURRENT_MAGIC_VALUE,
                Compression.NONE,
                TimestampType.CREATE_TIME,
                0L,
                RecordBatch.NO_TIMESTAMP,
                producerId,
                epoch,
                baseSequence,
                true,
                RecordBatch.NO_PARTITION_LEADER_EPOCH);
        for (int i = 0; i < records; i++) {
            builder.append(1L, null, ("t" + producerId + "-" + (baseSequence + i)).getBytes(StandardCharsets.UTF_8));
        }
        return bytes(builder.build().buffer());
    }

    /** Kafka's COMMIT or ABORT marker batch for the producer at {@code epoch}, from a coordinator of epoch 0. */
    public static MemorySegment marker(final long producerId, final short epoch, final ControlRecordType type) {
        return marker(producerId, epoch, type, 0);
    }

    /** Kafka's COMMIT or ABORT marker batch for the producer at {@code epoch}, from a coordinator of that epoch. */
    public static MemorySegment marker(
            final long producerId, final short epoch, final ControlRecordType type, final int coordinatorEpoch) {
        return bytes(MemoryRecords.withEndTransactionMarker(
                        0L,
                        1L,
                        RecordBatch.NO_PARTITION_LEADER_EPOCH,
                        producerId,
                        epoch,
                        new EndTransactionMarker(type, coordinatorEpoch))
                .buffer());
    }

    private static MemorySegment bytes(final ByteBuffer buffer) {
        final byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return MemorySegment.ofArray(bytes);
    }
}
