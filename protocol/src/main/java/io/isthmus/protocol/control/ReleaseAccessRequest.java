package io.isthmus.protocol.control;

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
public final class ReleaseAccessRequest extends ControlFlyweight<ReleaseAccessRequest> {
    public static final int PRODUCE = 1;
    public static final int CONSUME = 2;

    public static final int PARTITION_OFFSET = 0;
    public static final int ACCESS_OFFSET = 4;
    public static final int TOPIC_OFFSET = 8;

    public ReleaseAccessRequest() {
        super("ReleaseAccess request", TOPIC_OFFSET, "topic");
    }

    public int partition() {
        return getInt32(PARTITION_OFFSET);
    }

    public ReleaseAccessRequest partition(final int partition) {
        putInt32(PARTITION_OFFSET, partition);
        return this;
    }

    /** {@link #PRODUCE} or {@link #CONSUME}. */
    public int access() {
        return getInt32(ACCESS_OFFSET);
    }

    public ReleaseAccessRequest access(final int access) {
        putInt32(ACCESS_OFFSET, access);
        return this;
    }

    public String topic() {
        return getString(TOPIC_OFFSET);
    }

    public ReleaseAccessRequest topic(final String topic) {
        putString(TOPIC_OFFSET, topic);
        return this;
    }
}
