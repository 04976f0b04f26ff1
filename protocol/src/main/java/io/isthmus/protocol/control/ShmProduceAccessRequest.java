package io.isthmus.protocol.control;

/**
 * SHM_PRODUCE_ACCESS request body: a staging file through which this shared-memory session will hand batches to a
 * partition, {@code slots} slots of {@code slotBytes} each (the broker may grant fewer and smaller: at most its {@code
 * message.max.bytes} rounded up to {@link ProduceStagingDescriptor#SLOT_ALIGNMENT}, and at most {@code
 * shm.produce.slots}). {@code acks} and {@code timeoutMs} are the producer's Kafka settings, which its doorbells carry
 * no room for: with {@code acks=-1} (all) a batch is answered once {@code min.insync.replicas} hold it, waiting at most
 * {@code timeoutMs} ({@code request.timeout.ms}); with 1 or 0 once the leader has it.
 *
 * <pre>
 *   0           4          8           12     14      16          20
 *   +-----------+----------+-----------+------+-------+-----------+-------------------------+
 *   | partition | slots    | slotBytes | acks | (pad) | timeoutMs | topic (int16 len, UTF-8)|
 *   | int32     | int32    | int32     | int16| int16 | int32     |                         |
 *   +-----------+----------+-----------+------+-------+-----------+-------------------------+
 * </pre>
 */
public final class ShmProduceAccessRequest extends ControlFlyweight<ShmProduceAccessRequest> {
    public static final int PARTITION_OFFSET = 0;
    public static final int SLOTS_OFFSET = 4;
    public static final int SLOT_BYTES_OFFSET = 8;
    public static final int ACKS_OFFSET = 12;
    public static final int TIMEOUT_MS_OFFSET = 16;
    public static final int TOPIC_OFFSET = 20;

    public ShmProduceAccessRequest() {
        super("ShmProduceAccess request", TOPIC_OFFSET, "topic");
    }

    public int partition() {
        return getInt32(PARTITION_OFFSET);
    }

    public ShmProduceAccessRequest partition(final int partition) {
        putInt32(PARTITION_OFFSET, partition);
        return this;
    }

    /** Staging slots wanted: the batches the producer keeps in flight to the partition. */
    public int slots() {
        return getInt32(SLOTS_OFFSET);
    }

    public ShmProduceAccessRequest slots(final int slots) {
        putInt32(SLOTS_OFFSET, slots);
        return this;
    }

    /** Bytes per slot wanted: the producer's largest batch. */
    public int slotBytes() {
        return getInt32(SLOT_BYTES_OFFSET);
    }

    public ShmProduceAccessRequest slotBytes(final int slotBytes) {
        putInt32(SLOT_BYTES_OFFSET, slotBytes);
        return this;
    }

    /** Kafka's acks: -1 (all), 1 or 0. */
    public short acks() {
        return getInt16(ACKS_OFFSET);
    }

    public ShmProduceAccessRequest acks(final short acks) {
        putInt16(ACKS_OFFSET, acks);
        return this;
    }

    /** How long an {@code acks=-1} batch may wait for the in-sync replicas ({@code request.timeout.ms}). */
    public int timeoutMs() {
        return getInt32(TIMEOUT_MS_OFFSET);
    }

    public ShmProduceAccessRequest timeoutMs(final int timeoutMs) {
        putInt32(TIMEOUT_MS_OFFSET, timeoutMs);
        return this;
    }

    public String topic() {
        return getString(TOPIC_OFFSET);
    }

    public ShmProduceAccessRequest topic(final String topic) {
        putString(TOPIC_OFFSET, topic);
        return this;
    }
}
