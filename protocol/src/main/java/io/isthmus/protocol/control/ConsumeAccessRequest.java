package io.isthmus.protocol.control;

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
public final class ConsumeAccessRequest extends ControlFlyweight<ConsumeAccessRequest> {
    public static final int PARTITION_OFFSET = 0;
    public static final int OFFSET_OFFSET = 8;
    public static final int TOPIC_OFFSET = 16;

    public ConsumeAccessRequest() {
        super("ConsumeAccess request", TOPIC_OFFSET, "topic");
    }

    public int partition() {
        return getInt32(PARTITION_OFFSET);
    }

    public ConsumeAccessRequest partition(final int partition) {
        putInt32(PARTITION_OFFSET, partition);
        return this;
    }

    /** The log offset to read from. */
    public long offset() {
        return getInt64(OFFSET_OFFSET);
    }

    public ConsumeAccessRequest offset(final long offset) {
        putInt64(OFFSET_OFFSET, offset);
        return this;
    }

    public String topic() {
        return getString(TOPIC_OFFSET);
    }

    public ConsumeAccessRequest topic(final String topic) {
        putString(TOPIC_OFFSET, topic);
        return this;
    }
}
