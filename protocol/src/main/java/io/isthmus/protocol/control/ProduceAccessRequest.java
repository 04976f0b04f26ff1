package io.isthmus.protocol.control;

/**
 * PRODUCE_ACCESS request body: produce access to a partition's active segment, exclusive (the default) or
 * {@link #SHARED shared} with other RDMA producers and the broker's own TCP produce path.
 *
 * <p>With {@link #ROLL_FULL} the producer says that segment {@code fullSegmentId} (the one it holds) cannot take its
 * next batch: the broker seals it, starts a new one and answers with access to that (a roll mid-stream). A shared
 * producer also names {@code fullOrder}, the order of its reservation that overflowed: every reservation from that
 * order on overflowed too (positions only grow), so the broker rolls once it has committed all orders before it. A
 * first request names neither: both are -1.
 *
 * <p>{@code acks} and {@code timeoutMs} are the producer's Kafka settings, which its writes carry no room for: in a
 * cluster, with {@code acks=-1} (all) a write is acknowledged once {@code min.insync.replicas} hold its batch, waiting
 * at most {@code timeoutMs} ({@code request.timeout.ms}); with 1 or 0 once the leader has committed it.
 *
 * <p>With {@link #REPLICA} the asker is not a producer but the partition's leader, broker {@code leaderId} in
 * {@code leaderEpoch}, asking a follower for push replication (KafkaDirect section 4.3.2): its writes carry batches the
 * leader has already committed, offsets assigned, which the follower appends as they are at its log end. The other
 * fields are -1 ({@code fullSegmentId}, {@code fullOrder}) or ignored ({@code acks}, {@code timeoutMs}); a producer
 * sends -1 for both leader fields.
 *
 * <pre>
 *   0           4          8               12          16     18      20          24         28            32
 *   +-----------+----------+---------------+-----------+------+-------+-----------+----------+-------------+-------------------------+
 *   | partition | flags    | fullSegmentId | fullOrder | acks | (pad) | timeoutMs | leaderId | leaderEpoch | topic (int16 len, UTF-8)|
 *   | int32     | int32    | int32         | int32     | int16| int16 | int32     | int32    | int32       |                         |
 *   +-----------+----------+---------------+-----------+------+-------+-----------+----------+-------------+-------------------------+
 * </pre>
 */
public final class ProduceAccessRequest extends ControlFlyweight<ProduceAccessRequest> {
    /** The segment {@code fullSegmentId} is full: roll it and grant the next one. */
    public static final int ROLL_FULL = 1;
    /** Shared access: reserve space with FETCH_AND_ADD on the segment's {@link SharedProduceWordDescriptor word}. */
    public static final int SHARED = 2;
    /** Push replication: the leader asks a follower to take its batches (see the class). */
    public static final int REPLICA = 4;

    public static final int PARTITION_OFFSET = 0;
    public static final int FLAGS_OFFSET = 4;
    public static final int FULL_SEGMENT_ID_OFFSET = 8;
    public static final int FULL_ORDER_OFFSET = 12;
    public static final int ACKS_OFFSET = 16;
    public static final int TIMEOUT_MS_OFFSET = 20;
    public static final int LEADER_ID_OFFSET = 24;
    public static final int LEADER_EPOCH_OFFSET = 28;
    public static final int TOPIC_OFFSET = 32;

    public ProduceAccessRequest() {
        super("ProduceAccess request", TOPIC_OFFSET, "topic");
    }

    public int partition() {
        return getInt32(PARTITION_OFFSET);
    }

    public ProduceAccessRequest partition(final int partition) {
        putInt32(PARTITION_OFFSET, partition);
        return this;
    }

    /** {@link #ROLL_FULL} | {@link #SHARED} | {@link #REPLICA}. */
    public int flags() {
        return getInt32(FLAGS_OFFSET);
    }

    public ProduceAccessRequest flags(final int flags) {
        putInt32(FLAGS_OFFSET, flags);
        return this;
    }

    public boolean rollsFullSegment() {
        return (flags() & ROLL_FULL) != 0;
    }

    public boolean shared() {
        return (flags() & SHARED) != 0;
    }

    public boolean replica() {
        return (flags() & REPLICA) != 0;
    }

    public int fullSegmentId() {
        return getInt32(FULL_SEGMENT_ID_OFFSET);
    }

    public ProduceAccessRequest fullSegmentId(final int fullSegmentId) {
        putInt32(FULL_SEGMENT_ID_OFFSET, fullSegmentId);
        return this;
    }

    public int fullOrder() {
        return getInt32(FULL_ORDER_OFFSET);
    }

    public ProduceAccessRequest fullOrder(final int fullOrder) {
        putInt32(FULL_ORDER_OFFSET, fullOrder);
        return this;
    }

    /** Kafka's acks: -1 (all), 1 or 0. */
    public short acks() {
        return getInt16(ACKS_OFFSET);
    }

    public ProduceAccessRequest acks(final short acks) {
        putInt16(ACKS_OFFSET, acks);
        return this;
    }

    /** How long an {@code acks=-1} write may wait for the in-sync replicas ({@code request.timeout.ms}). */
    public int timeoutMs() {
        return getInt32(TIMEOUT_MS_OFFSET);
    }

    public ProduceAccessRequest timeoutMs(final int timeoutMs) {
        putInt32(TIMEOUT_MS_OFFSET, timeoutMs);
        return this;
    }

    /** {@link #REPLICA}: the broker id of the leader asking; -1 from a producer. */
    public int leaderId() {
        return getInt32(LEADER_ID_OFFSET);
    }

    public ProduceAccessRequest leaderId(final int leaderId) {
        putInt32(LEADER_ID_OFFSET, leaderId);
        return this;
    }

    /** {@link #REPLICA}: the leader epoch the asking leader leads the partition in; -1 from a producer. */
    public int leaderEpoch() {
        return getInt32(LEADER_EPOCH_OFFSET);
    }

    public ProduceAccessRequest leaderEpoch(final int leaderEpoch) {
        putInt32(LEADER_EPOCH_OFFSET, leaderEpoch);
        return this;
    }

    public String topic() {
        return getString(TOPIC_OFFSET);
    }

    public ProduceAccessRequest topic(final String topic) {
        putString(TOPIC_OFFSET, topic);
        return this;
    }
}
