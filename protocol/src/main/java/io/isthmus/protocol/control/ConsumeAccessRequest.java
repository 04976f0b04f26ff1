package io.isthmus.protocol.control;

import java.lang.foreign.MemorySegment;

/**
 * CONSUME_ACCESS request body: read access to the segment that holds {@code offset}. Asking again for a partition the
 * connection already reads (the next segment after a sealed one) reuses that partition's metadata slot.
 *
 * <pre>
 *   0           4          8                16
 *   +-----------+----------+----------------+-------------------------+
 *   | partition | (pad)    | offset         | topic (int16 len, UTF-8)|
 *   | int32     | int32    | int64          |                         |
 *   +-----------+----------+----------------+-------------------------+
 * </pre>
 */
public record ConsumeAccessRequest(String topic, int partition, long offset) implements ControlMessage {
    public static final int PARTITION_OFFSET = 0;
    public static final int OFFSET_OFFSET = 8;
    public static final int TOPIC_OFFSET = 16;

    @Override
    public int encodedLength() {
        return TOPIC_OFFSET + ControlCodec.stringLength(topic);
    }

    @Override
    public int encode(final MemorySegment segment, final long offset) {
        segment.set(ControlCodec.INT32, offset + PARTITION_OFFSET, partition);
        segment.set(ControlCodec.INT32, offset + PARTITION_OFFSET + 4, 0);
        segment.set(ControlCodec.INT64, offset + OFFSET_OFFSET, this.offset);
        return TOPIC_OFFSET + ControlCodec.putString(segment, offset + TOPIC_OFFSET, topic);
    }

    public static ConsumeAccessRequest decode(final MemorySegment segment, final long offset) {
        ControlCodec.requireLength(segment, offset, TOPIC_OFFSET + Short.BYTES, "ConsumeAccess request");
        return new ConsumeAccessRequest(
                ControlCodec.getString(segment, offset + TOPIC_OFFSET),
                segment.get(ControlCodec.INT32, offset + PARTITION_OFFSET),
                segment.get(ControlCodec.INT64, offset + OFFSET_OFFSET));
    }
}
