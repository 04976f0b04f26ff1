package io.isthmus.broker.group;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.apache.kafka.common.TopicPartition;

/**
 * The record a group's committed offset of one partition is written as in {@code __consumer_offsets}: the last one of
 * a key wins, and one without a value (a tombstone, {@code offset} null) removes it. Big-endian, strings in UTF-8 with
 * a 16-bit length; both versions are 0 (the key's tells it from a {@link MembershipRecord}).
 *
 * <pre>
 *   key:    version:int16 | group:string | topic:string | partition:int32
 *   value:  version:int16 | offset:int64 | leaderEpoch:int32 | commitTimestampMs:int64 | metadata:string
 * </pre>
 *
 * @param group the group
 * @param partition the partition whose offset it is
 * @param offset the committed offset, or null for a tombstone
 */
record OffsetRecord(String group, TopicPartition partition, CommittedOffset offset) {
    /** The key version of an offset record. */
    static final short KEY_VERSION = 0;

    private static final short VALUE_VERSION = 0;
    private static final String RECORD = "offset record";
    private static final int KEY_FIXED_BYTES = Short.BYTES + Short.BYTES + Short.BYTES + Integer.BYTES;
    private static final int VALUE_FIXED_BYTES = Short.BYTES + Long.BYTES + Integer.BYTES + Long.BYTES + Short.BYTES;

    static byte[] key(final String groupId, final TopicPartition partition) {
        final byte[] group = groupId.getBytes(StandardCharsets.UTF_8);
        final byte[] topic = partition.topic().getBytes(StandardCharsets.UTF_8);
        final ByteBuffer key = ByteBuffer.allocate(KEY_FIXED_BYTES + group.length + topic.length);
        key.putShort(KEY_VERSION);
        RecordStrings.put(key, group, RECORD);
        RecordStrings.put(key, topic, RECORD);
        key.putInt(partition.partition());
        return key.array();
    }

    static byte[] value(final CommittedOffset committed) {
        final byte[] metadata = committed.metadata() == null
                ? new byte[0]
                : committed.metadata().getBytes(StandardCharsets.UTF_8);
        final ByteBuffer value = ByteBuffer.allocate(VALUE_FIXED_BYTES + metadata.length);
        value.putShort(VALUE_VERSION);
        value.putLong(committed.offset());
        value.putInt(committed.leaderEpoch());
        value.putLong(committed.commitTimestampMs());
        RecordStrings.put(value, metadata, RECORD);
        return value.array();
    }

    /**
     * Reads the record with {@code key} and {@code value} (null for a tombstone), both from their start.
     *
     * @param log the log it was read from, for the message of a version this broker does not know
     * @throws IllegalStateException for a key or value of another version
     */
    static OffsetRecord read(final ByteBuffer key, final ByteBuffer value, final Path log) {
        final short keyVersion = key.getShort();
        if (keyVersion != KEY_VERSION) {
            throw new IllegalStateException("unknown " + RECORD + " key version " + keyVersion + " in " + log);
        }
        final String group = RecordStrings.read(key, RECORD);
        final TopicPartition partition = new TopicPartition(RecordStrings.read(key, RECORD), key.getInt());
        if (value == null) {
            return new OffsetRecord(group, partition, null);
        }
        final short valueVersion = value.getShort();
        if (valueVersion != VALUE_VERSION) {
            throw new IllegalStateException("unknown " + RECORD + " value version " + valueVersion + " in " + log);
        }
        final long offset = value.getLong();
        final int leaderEpoch = value.getInt();
        final long timestamp = value.getLong();
        return new OffsetRecord(
                group,
                partition,
                new CommittedOffset(offset, leaderEpoch, RecordStrings.read(value, RECORD), timestamp));
    }
}
