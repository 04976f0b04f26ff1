package io.isthmus.protocol.control;

import java.lang.foreign.MemorySegment;

/**
 * RELEASE_ACCESS request body: gives back produce or consume access to a partition. The broker deregisters a segment
 * once nobody uses it; closing the TCP connection (or the queue pair failing) releases everything at once.
 *
 * <pre>
 *   0           4          8
 *   +-----------+----------+-------------------------+
 *   | partition | access   | topic (int16 len, UTF-8)|
 *   | int32     | int32    |                         |
 *   +-----------+----------+-------------------------+
 * </pre>
 */
public record ReleaseAccessRequest(String topic, int partition, int access) implements ControlMessage {
    public static final int PRODUCE = 1;
    public static final int CONSUME = 2;

    public static final int PARTITION_OFFSET = 0;
    public static final int ACCESS_OFFSET = 4;
    public static final int TOPIC_OFFSET = 8;

    @Override
    public int encodedLength() {
        return TOPIC_OFFSET + ControlCodec.stringLength(topic);
    }

    @Override
    public int encode(final MemorySegment segment, final long offset) {
        segment.set(ControlCodec.INT32, offset + PARTITION_OFFSET, partition);
        segment.set(ControlCodec.INT32, offset + ACCESS_OFFSET, access);
        return TOPIC_OFFSET + ControlCodec.putString(segment, offset + TOPIC_OFFSET, topic);
    }

    public static ReleaseAccessRequest decode(final MemorySegment segment, final long offset) {
        ControlCodec.requireLength(segment, offset, TOPIC_OFFSET + Short.BYTES, "ReleaseAccess request");
        return new ReleaseAccessRequest(
                ControlCodec.getString(segment, offset + TOPIC_OFFSET),
                segment.get(ControlCodec.INT32, offset + PARTITION_OFFSET),
                segment.get(ControlCodec.INT32, offset + ACCESS_OFFSET));
    }
}
