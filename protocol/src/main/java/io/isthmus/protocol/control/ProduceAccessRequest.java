package io.isthmus.protocol.control;

import java.lang.foreign.MemorySegment;

/**
 * PRODUCE_ACCESS request body: produce access to a partition's active segment, exclusive (the default) or
 * {@link #SHARED shared} with other RDMA producers and the broker's own TCP produce path.
 *
 * <p>With {@link #ROLL_FULL} the producer says that segment {@code fullSegmentId} (the one it holds) cannot take its
 * next batch: the broker seals it, starts a new one and answers with access to that (a roll mid-stream). A shared
 * producer also names {@code fullOrder}, the order of its reservation that overflowed: every reservation from that
 * order on overflowed too (positions only grow), so the broker rolls once it has committed all orders before it.
 *
 * <pre>
 *   0           4          8               12          16
 *   +-----------+----------+---------------+-----------+-------------------------+
 *   | partition | flags    | fullSegmentId | fullOrder | topic (int16 len, UTF-8)|
 *   | int32     | int32    | int32         | int32     |                         |
 *   +-----------+----------+---------------+-----------+-------------------------+
 * </pre>
 */
public record ProduceAccessRequest(String topic, int partition, int flags, int fullSegmentId, int fullOrder)
        implements ControlMessage {
    /** The segment {@code fullSegmentId} is full: roll it and grant the next one. */
    public static final int ROLL_FULL = 1;
    /** Shared access: reserve space with FETCH_AND_ADD on the segment's {@link SharedProduceWordDescriptor word}. */
    public static final int SHARED = 2;

    public static final int PARTITION_OFFSET = 0;
    public static final int FLAGS_OFFSET = 4;
    public static final int FULL_SEGMENT_ID_OFFSET = 8;
    public static final int FULL_ORDER_OFFSET = 12;
    public static final int TOPIC_OFFSET = 16;

    /** First exclusive access to {@code topic}-{@code partition}. */
    public static ProduceAccessRequest of(final String topic, final int partition) {
        return new ProduceAccessRequest(topic, partition, 0, -1, -1);
    }

    /** First shared access to {@code topic}-{@code partition}. */
    public static ProduceAccessRequest shared(final String topic, final int partition) {
        return new ProduceAccessRequest(topic, partition, SHARED, -1, -1);
    }

    /** Exclusive access to the segment after the full one. */
    public static ProduceAccessRequest rollFull(final String topic, final int partition, final int fullSegmentId) {
        return new ProduceAccessRequest(topic, partition, ROLL_FULL, fullSegmentId, -1);
    }

    /** Shared access to the segment after the full one, whose reservation {@code fullOrder} overflowed. */
    public static ProduceAccessRequest rollFullShared(
            final String topic, final int partition, final int fullSegmentId, final int fullOrder) {
        return new ProduceAccessRequest(topic, partition, ROLL_FULL | SHARED, fullSegmentId, fullOrder);
    }

    public boolean rollsFullSegment() {
        return (flags & ROLL_FULL) != 0;
    }

    public boolean shared() {
        return (flags & SHARED) != 0;
    }

    @Override
    public int encodedLength() {
        return TOPIC_OFFSET + ControlCodec.stringLength(topic);
    }

    @Override
    public int encode(final MemorySegment segment, final long offset) {
        segment.set(ControlCodec.INT32, offset + PARTITION_OFFSET, partition);
        segment.set(ControlCodec.INT32, offset + FLAGS_OFFSET, flags);
        segment.set(ControlCodec.INT32, offset + FULL_SEGMENT_ID_OFFSET, fullSegmentId);
        segment.set(ControlCodec.INT32, offset + FULL_ORDER_OFFSET, fullOrder);
        return TOPIC_OFFSET + ControlCodec.putString(segment, offset + TOPIC_OFFSET, topic);
    }

    public static ProduceAccessRequest decode(final MemorySegment segment, final long offset) {
        ControlCodec.requireLength(segment, offset, TOPIC_OFFSET + Short.BYTES, "ProduceAccess request");
        return new ProduceAccessRequest(
                ControlCodec.getString(segment, offset + TOPIC_OFFSET),
                segment.get(ControlCodec.INT32, offset + PARTITION_OFFSET),
                segment.get(ControlCodec.INT32, offset + FLAGS_OFFSET),
                segment.get(ControlCodec.INT32, offset + FULL_SEGMENT_ID_OFFSET),
                segment.get(ControlCodec.INT32, offset + FULL_ORDER_OFFSET));
    }
}
