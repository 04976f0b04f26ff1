package io.isthmus.protocol.record;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Layout of a Kafka RecordBatch v2 (magic 2, Kafka's {@code DefaultRecordBatch}), all fields big-endian.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                         Base Offset                           |  0
 *  |                          (int64)                              |
 *  +---------------------------------------------------------------+
 *  |                  Length (int32, bytes after this field)       |  8
 *  +---------------------------------------------------------------+
 *  |                 Partition Leader Epoch (int32)                | 12
 *  +---------------+-----------------------------------------------+
 *  |  Magic (=2)   |          CRC-32C (uint32) ...                 | 16, 17
 *  +---------------+---------------+-------------------------------+
 *  |  ... CRC      |   Attributes (int16)          | Last Offset   | 21 (CRC starts here), 23
 *  +---------------+-------------------------------+               |
 *  |              Delta (int32)                    | Base          | 27
 *  +-----------------------------------------------+ Timestamp     |
 *  |                      (int64)                  | Max           | 35
 *  +-----------------------------------------------+ Timestamp     |
 *  |                      (int64)                  | Producer      | 43
 *  +-----------------------------------------------+ Id            |
 *  |                      (int64)                  | Producer      | 51
 *  +-----------------------------------------------+ Epoch (int16) |
 *  |               |     Base Sequence (int32)                     | 53
 *  +---------------+-----------------------------------------------+
 *  |               |     Records Count (int32)                     | 57
 *  +---------------+-----------------------------------------------+
 *  |               |     Records ... (possibly compressed)         | 61
 *  +---------------+-----------------------------------------------+
 * </pre>
 *
 * <p>The CRC-32C covers everything from {@link #ATTRIBUTES_OFFSET} to the end of the batch. Base offset, length,
 * partition leader epoch and magic are outside it, so a broker can assign the base offset and stamp the leader epoch
 * in place without recomputing the CRC.
 *
 * <p>Attributes (int16): bits 0-2 compression codec (0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd), bit 3 timestamp type
 * (0 create time, 1 log-append time), bit 4 transactional, bit 5 control, bit 6 delete horizon set.
 *
 * <p>Each record:
 *
 * <pre>
 *  Length varint | Attributes int8 | TimestampDelta varlong | OffsetDelta varint |
 *  KeyLength varint (-1 = null) | Key | ValueLength varint (-1 = null) | Value |
 *  HeadersCount varint | (HeaderKeyLength varint | HeaderKey | HeaderValueLength varint (-1 = null) | HeaderValue)*
 * </pre>
 *
 * Varints are zig-zag encoded (protobuf style, like Kafka's {@code ByteUtils.writeVarint}); the record length counts
 * the bytes after the length varint.
 */
public final class RecordBatchDescriptor {
    public static final int BASE_OFFSET_OFFSET = 0;
    public static final int LENGTH_OFFSET = 8;
    public static final int PARTITION_LEADER_EPOCH_OFFSET = 12;
    public static final int MAGIC_OFFSET = 16;
    public static final int CRC_OFFSET = 17;
    public static final int ATTRIBUTES_OFFSET = 21;
    public static final int LAST_OFFSET_DELTA_OFFSET = 23;
    public static final int BASE_TIMESTAMP_OFFSET = 27;
    public static final int MAX_TIMESTAMP_OFFSET = 35;
    public static final int PRODUCER_ID_OFFSET = 43;
    public static final int PRODUCER_EPOCH_OFFSET = 51;
    public static final int BASE_SEQUENCE_OFFSET = 53;
    public static final int RECORDS_COUNT_OFFSET = 57;
    public static final int RECORDS_OFFSET = 61;

    /** Size of the batch header, up to and including the record count. */
    public static final int HEADER_LENGTH = 61;
    /** Base offset plus length: the bytes not counted by the length field. */
    public static final int LOG_OVERHEAD = 12;
    /** First byte covered by the CRC-32C. */
    public static final int CRC_START_OFFSET = 21;
    /** Smallest legal value of the length field: a batch header with no records. */
    public static final int MIN_LENGTH = HEADER_LENGTH - LOG_OVERHEAD;

    public static final byte MAGIC_V2 = 2;

    public static final int COMPRESSION_CODEC_MASK = 0x07;
    public static final int TIMESTAMP_TYPE_MASK = 0x08;
    public static final int TRANSACTIONAL_FLAG_MASK = 0x10;
    public static final int CONTROL_FLAG_MASK = 0x20;
    public static final int DELETE_HORIZON_FLAG_MASK = 0x40;

    public static final long NO_PRODUCER_ID = -1L;
    public static final short NO_PRODUCER_EPOCH = -1;
    public static final int NO_SEQUENCE = -1;
    public static final int NO_PARTITION_LEADER_EPOCH = -1;
    public static final long NO_TIMESTAMP = -1L;

    /** Big-endian, unaligned layouts used for every header field. */
    public static final ValueLayout.OfLong INT64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    public static final ValueLayout.OfInt INT32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    public static final ValueLayout.OfShort INT16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    public static final ValueLayout.OfByte INT8 = ValueLayout.JAVA_BYTE;

    private RecordBatchDescriptor() {}

    /** The length field of the batch at {@code batchOffset}. */
    public static int length(final MemorySegment segment, final long batchOffset) {
        return segment.get(INT32, batchOffset + LENGTH_OFFSET);
    }

    /** Whole batch size in bytes: {@link #LOG_OVERHEAD} plus the length field. */
    public static long batchSize(final MemorySegment segment, final long batchOffset) {
        return LOG_OVERHEAD + (long) length(segment, batchOffset);
    }

    /** Batch size for a given length field value. */
    public static long batchSizeForLength(final int length) {
        return LOG_OVERHEAD + (long) length;
    }

    public static long baseOffset(final MemorySegment segment, final long batchOffset) {
        return segment.get(INT64, batchOffset + BASE_OFFSET_OFFSET);
    }

    public static void baseOffset(final MemorySegment segment, final long batchOffset, final long value) {
        segment.set(INT64, batchOffset + BASE_OFFSET_OFFSET, value);
    }

    public static byte magic(final MemorySegment segment, final long batchOffset) {
        return segment.get(INT8, batchOffset + MAGIC_OFFSET);
    }

    /** Last offset of the batch at {@code batchOffset}: base offset plus last offset delta. */
    public static long lastOffset(final MemorySegment segment, final long batchOffset) {
        return baseOffset(segment, batchOffset) + lastOffsetDelta(segment, batchOffset);
    }

    public static int lastOffsetDelta(final MemorySegment segment, final long batchOffset) {
        return segment.get(INT32, batchOffset + LAST_OFFSET_DELTA_OFFSET);
    }

    public static long maxTimestamp(final MemorySegment segment, final long batchOffset) {
        return segment.get(INT64, batchOffset + MAX_TIMESTAMP_OFFSET);
    }

    /** The leader epoch the batch was appended in. */
    public static int partitionLeaderEpoch(final MemorySegment segment, final long batchOffset) {
        return segment.get(INT32, batchOffset + PARTITION_LEADER_EPOCH_OFFSET);
    }

    /** Stamps the leader epoch (outside the CRC, so a broker may do it in place). */
    public static void partitionLeaderEpoch(final MemorySegment segment, final long batchOffset, final int value) {
        segment.set(INT32, batchOffset + PARTITION_LEADER_EPOCH_OFFSET, value);
    }

    /** The last sequence of a batch, wrapping at Integer.MAX_VALUE like Kafka; {@code NO_SEQUENCE} if none. */
    public static int lastSequence(final int baseSequence, final int lastOffsetDelta) {
        if (baseSequence == NO_SEQUENCE) {
            return NO_SEQUENCE;
        }
        final long last = (long) baseSequence + lastOffsetDelta;
        return (int) (last > Integer.MAX_VALUE ? last - Integer.MAX_VALUE - 1 : last);
    }

    /** The CRC stored in the batch, as an unsigned value. */
    public static long storedCrc(final MemorySegment segment, final long batchOffset) {
        return Integer.toUnsignedLong(segment.get(INT32, batchOffset + CRC_OFFSET));
    }

    /** CRC-32C of the batch at {@code batchOffset} as it should be stored (the batch length is read from it). */
    public static long computeCrc(final MemorySegment segment, final long batchOffset) {
        final long size = batchSize(segment, batchOffset);
        return Crc32c.compute(segment, batchOffset + CRC_START_OFFSET, size - CRC_START_OFFSET);
    }

    /** Recomputes the CRC of the batch at {@code batchOffset} and stores it. */
    public static void updateCrc(final MemorySegment segment, final long batchOffset) {
        segment.set(INT32, batchOffset + CRC_OFFSET, (int) computeCrc(segment, batchOffset));
    }

    /** Composes an attributes value. */
    public static short attributes(
            final CompressionType compression,
            final TimestampType timestampType,
            final boolean transactional,
            final boolean control,
            final boolean deleteHorizonSet) {
        int attributes = compression.id() & COMPRESSION_CODEC_MASK;
        if (timestampType == TimestampType.LOG_APPEND_TIME) {
            attributes |= TIMESTAMP_TYPE_MASK;
        }
        if (transactional) {
            attributes |= TRANSACTIONAL_FLAG_MASK;
        }
        if (control) {
            attributes |= CONTROL_FLAG_MASK;
        }
        if (deleteHorizonSet) {
            attributes |= DELETE_HORIZON_FLAG_MASK;
        }
        return (short) attributes;
    }
}
