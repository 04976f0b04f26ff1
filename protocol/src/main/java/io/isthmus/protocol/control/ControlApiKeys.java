package io.isthmus.protocol.control;

/**
 * API keys of the isthmus control requests. They lie far outside Kafka's range (Kafka's keys are below 100), so a
 * Kafka client never sends them and a Kafka broker never mistakes them for its own; the broker advertises them in
 * ApiVersions when its RDMA datapath is running, which is how a {@code transport=auto} client decides.
 */
public final class ControlApiKeys {
    /** First key of the isthmus range. */
    public static final short FIRST = 32000;
    /** Exchange queue-pair addresses and connect an RC queue pair to the broker (manual exchange). */
    public static final short RDMA_CONNECT = 32000;
    /** Exclusive produce access to a partition's active segment, or a follower's push replication access. */
    public static final short PRODUCE_ACCESS = 32001;
    /** Read access to the segment holding an offset, plus a metadata slot. */
    public static final short CONSUME_ACCESS = 32002;
    /** Gives produce or consume access back. */
    public static final short RELEASE_ACCESS = 32003;
    /** Proves the client can read the broker's shared-memory directory; opens a shared-memory session. */
    public static final short SHM_ATTACH = 32004;
    /** Read access to the segment file holding an offset, plus a metadata slot in the shared slot file. */
    public static final short SHM_CONSUME_ACCESS = 32005;
    /** Gives shared-memory consume access back (a {@link ReleaseAccessRequest}). */
    public static final short SHM_RELEASE_ACCESS = 32006;
    /** A staging file for the batches a producer hands a partition through shared memory. */
    public static final short SHM_PRODUCE_ACCESS = 32007;
    /** The doorbell: the batch in a staging slot is whole; append it (answered once committed). */
    public static final short SHM_PRODUCE = 32008;
    /** Last key of the isthmus range (reserved up to here for what comes next: replication). */
    public static final short LAST = 32099;
    /**
     * The one version of every control request, which a broker requires (it closes a connection sending another, naming
     * both), so a client and a broker of different layouts fail at once, with the reason, instead of reading each
     * other's fields at the wrong offsets: 1 since SHM_PRODUCE_ACCESS carries the producer's acks and timeout, 2 since
     * PRODUCE_ACCESS does too (RDMA produce in a cluster), 3 since PRODUCE_ACCESS names the leader
     * asking for push replication.
     */
    public static final short VERSION = 3;

    private ControlApiKeys() {}

    /** Whether {@code apiKey} lies in the isthmus range (known or not). */
    public static boolean isControlApiKey(final short apiKey) {
        return apiKey >= FIRST && apiKey <= LAST;
    }

    /** A name for log messages. */
    public static String name(final short apiKey) {
        return switch (apiKey) {
            case RDMA_CONNECT -> "RdmaConnect";
            case PRODUCE_ACCESS -> "ProduceAccess";
            case CONSUME_ACCESS -> "ConsumeAccess";
            case RELEASE_ACCESS -> "ReleaseAccess";
            case SHM_ATTACH -> "ShmAttach";
            case SHM_CONSUME_ACCESS -> "ShmConsumeAccess";
            case SHM_RELEASE_ACCESS -> "ShmReleaseAccess";
            case SHM_PRODUCE_ACCESS -> "ShmProduceAccess";
            case SHM_PRODUCE -> "ShmProduce";
            default -> "IsthmusControl(" + apiKey + ")";
        };
    }
}
