package io.isthmus.broker.transaction;

import io.isthmus.broker.group.CommittedOffset;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * The value of a transaction state log record: one {@link TransactionMetadata}; the record's key is the transactional
 * id in UTF-8, and a record without a value removes the id. Kafka keeps the same facts in {@code __transaction_state}
 * (its {@code TransactionLogValue}); the pending group offsets are here because isthmus keeps committed offsets outside
 * any log, so a commit decided before a crash must carry them to the restart that finishes it.
 *
 * <pre>
 *  0      version                 int16 (0)
 *  2      producer id             int64
 * 10      producer epoch          int16
 * 12      timeout ms              int32
 * 16      state                   int8   ({@link TransactionState#id()})
 * 17      start timestamp ms      int64
 * 25      last update ms          int64
 * 33      partition count         int32, then per partition: topic (string), partition int32
 *         group count             int32, then per group: group id (string), offset count int32, then per offset:
 *                                        topic (string), partition int32, offset int64, leader epoch int32,
 *                                        metadata (string), commit timestamp int64
 *  string: length int32, UTF-8 bytes; all integers big-endian
 * </pre>
 */
final class TransactionLogValue {
    static final short VERSION = 0;

    private TransactionLogValue() {}

    static byte[] encode(final TransactionMetadata metadata) {
        final byte[][] topics = new byte[metadata.partitions().size()][];
        int size = 2 + 8 + 2 + 4 + 1 + 8 + 8 + 4 + 4;
        int index = 0;
        for (final TopicPartition partition : metadata.partitions()) {
            topics[index] = utf8(partition.topic());
            size += 4 + topics[index].length + 4;
            index++;
        }
        for (final Map.Entry<String, Map<TopicPartition, CommittedOffset>> group :
                metadata.pendingOffsets().entrySet()) {
            size += 4 + utf8(group.getKey()).length + 4;
            for (final Map.Entry<TopicPartition, CommittedOffset> offset :
                    group.getValue().entrySet()) {
                size += 4
                        + utf8(offset.getKey().topic()).length
                        + 4
                        + 8
                        + 4
                        + 4
                        + utf8(offset.getValue().metadata()).length
                        + 8;
            }
        }
        final ByteBuffer buffer = ByteBuffer.allocate(size);
        buffer.putShort(VERSION)
                .putLong(metadata.producerId())
                .putShort(metadata.producerEpoch())
                .putInt(metadata.timeoutMs())
                .put(metadata.state().id())
                .putLong(metadata.startTimestampMs())
                .putLong(metadata.lastUpdateTimestampMs())
                .putInt(metadata.partitions().size());
        index = 0;
        for (final TopicPartition partition : metadata.partitions()) {
            putBytes(buffer, topics[index++]);
            buffer.putInt(partition.partition());
        }
        buffer.putInt(metadata.pendingOffsets().size());
        for (final Map.Entry<String, Map<TopicPartition, CommittedOffset>> group :
                metadata.pendingOffsets().entrySet()) {
            putBytes(buffer, utf8(group.getKey()));
            buffer.putInt(group.getValue().size());
            for (final Map.Entry<TopicPartition, CommittedOffset> offset :
                    group.getValue().entrySet()) {
                putBytes(buffer, utf8(offset.getKey().topic()));
                buffer.putInt(offset.getKey().partition())
                        .putLong(offset.getValue().offset())
                        .putInt(offset.getValue().leaderEpoch());
                putBytes(buffer, utf8(offset.getValue().metadata()));
                buffer.putLong(offset.getValue().commitTimestampMs());
            }
        }
        return buffer.array();
    }

    /**
     * @throws IllegalStateException if the value is not one this version wrote (the log's CRC passed, so the broker that
     *     wrote it was newer or broken: it must not guess)
     */
    static TransactionMetadata decode(final String transactionalId, final ByteBuffer value) {
        try {
            final short version = value.getShort();
            if (version != VERSION) {
                throw new IllegalStateException("transaction state of transactionalId=" + transactionalId
                        + " has version " + version + ", this broker reads " + VERSION);
            }
            final long producerId = value.getLong();
            final short epoch = value.getShort();
            final int timeoutMs = value.getInt();
            final TransactionState state = TransactionState.ofId(value.get());
            final long startMs = value.getLong();
            final long updateMs = value.getLong();
            final Set<TopicPartition> partitions = new LinkedHashSet<>();
            for (int i = value.getInt(); i > 0; i--) {
                partitions.add(new TopicPartition(string(value), value.getInt()));
            }
            final Map<String, Map<TopicPartition, CommittedOffset>> groups = new LinkedHashMap<>();
            for (int i = value.getInt(); i > 0; i--) {
                final String group = string(value);
                final Map<TopicPartition, CommittedOffset> offsets = new LinkedHashMap<>();
                for (int j = value.getInt(); j > 0; j--) {
                    final TopicPartition partition = new TopicPartition(string(value), value.getInt());
                    final long offset = value.getLong();
                    final int leaderEpoch = value.getInt();
                    final String metadata = string(value);
                    offsets.put(partition, new CommittedOffset(offset, leaderEpoch, metadata, value.getLong()));
                }
                groups.put(group, offsets);
            }
            return new TransactionMetadata(
                    transactionalId, producerId, epoch, timeoutMs, state, partitions, groups, startMs, updateMs);
        } catch (final BufferUnderflowException | IllegalArgumentException e) {
            throw new IllegalStateException(
                    "malformed transaction state of transactionalId=" + transactionalId + ": " + e, e);
        }
    }

    private static byte[] utf8(final String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static void putBytes(final ByteBuffer buffer, final byte[] bytes) {
        buffer.putInt(bytes.length).put(bytes);
    }

    private static String string(final ByteBuffer value) {
        final int length = value.getInt();
        if (length < 0 || length > value.remaining()) {
            throw new IllegalArgumentException("string length " + length + " with " + value.remaining() + " left");
        }
        final String text =
                new String(value.array(), value.arrayOffset() + value.position(), length, StandardCharsets.UTF_8);
        value.position(value.position() + length);
        return text;
    }
}
