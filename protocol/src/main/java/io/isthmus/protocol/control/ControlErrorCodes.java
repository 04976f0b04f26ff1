package io.isthmus.protocol.control;

/**
 * Error codes of control responses and produce acknowledgements. Where Kafka has a code for the same condition it is
 * reused with Kafka's number; conditions only the RDMA and shared-memory datapaths have use numbers from 10000 up.
 */
public final class ControlErrorCodes {
    public static final short NONE = 0;
    /** Kafka's OFFSET_OUT_OF_RANGE: the offset is not (or no longer, after retention) in the log. */
    public static final short OFFSET_OUT_OF_RANGE = 1;
    /** Kafka's CORRUPT_MESSAGE: a batch written over RDMA failed validation; produce access is revoked. */
    public static final short CORRUPT_MESSAGE = 2;
    /** Kafka's UNKNOWN_TOPIC_OR_PARTITION. */
    public static final short UNKNOWN_TOPIC_OR_PARTITION = 3;
    /**
     * Kafka's NOT_LEADER_OR_FOLLOWER: this broker does not lead the partition (a follower of a cluster, or a leader
     * whose leadership moved since the grant), so access is refused or revoked; ask the leader the metadata names now.
     */
    public static final short NOT_LEADER_OR_FOLLOWER = 6;
    /**
     * Kafka's REQUEST_TIMED_OUT: an {@code acks=-1} write was committed by the leader but not held by {@code
     * min.insync.replicas} within the producer's {@code request.timeout.ms}; retried as a Produce is (an idempotent
     * retry is answered as a duplicate).
     */
    public static final short REQUEST_TIMED_OUT = 7;
    /**
     * Kafka's NOT_ENOUGH_REPLICAS: fewer than {@code min.insync.replicas} are in sync, so an {@code acks=-1} write was
     * not committed and produce access is revoked; retriable.
     */
    public static final short NOT_ENOUGH_REPLICAS = 19;
    /** Kafka's NOT_ENOUGH_REPLICAS_AFTER_APPEND: committed, then the in-sync replicas fell below the minimum. */
    public static final short NOT_ENOUGH_REPLICAS_AFTER_APPEND = 20;
    /** Kafka's UNKNOWN_SERVER_ERROR. */
    public static final short UNKNOWN_SERVER_ERROR = -1;
    /**
     * Kafka's TOPIC_AUTHORIZATION_FAILED: the connection's principal may not read (consume access) or write (produce
     * access) the topic; also the reason a session is closed when the ACLs change under a grant it holds.
     */
    public static final short TOPIC_AUTHORIZATION_FAILED = 29;
    /**
     * Kafka's CLUSTER_AUTHORIZATION_FAILED: push replication access asked by a principal without CLUSTER_ACTION on the
     * cluster (what a replica Fetch needs too).
     */
    public static final short CLUSTER_AUTHORIZATION_FAILED = 31;
    /** Kafka's INVALID_REQUEST: a malformed control message or one out of protocol order. */
    public static final short INVALID_REQUEST = 42;
    /**
     * Kafka's OUT_OF_ORDER_SEQUENCE_NUMBER: an idempotent producer's write skipped sequence numbers; it was not
     * committed and produce access is revoked.
     */
    public static final short OUT_OF_ORDER_SEQUENCE_NUMBER = 45;
    /**
     * Kafka's DUPLICATE_SEQUENCE_NUMBER: the write repeats a batch of an idempotent producer that is already in the
     * log, at the ack's base offset. Nothing was written: the grant's tail did not move, so the producer asks for
     * access again (and learns the tail) before its next write.
     */
    public static final short DUPLICATE_SEQUENCE_NUMBER = 46;
    /** Kafka's INVALID_PRODUCER_EPOCH: a newer instance of the idempotent producer has written; access is revoked. */
    public static final short INVALID_PRODUCER_EPOCH = 47;
    /** The broker has no usable RDMA device or RDMA is disabled; the reason travels with the connect response. */
    public static final short RDMA_UNAVAILABLE = 10000;
    /** A data request before RDMA_CONNECT on this TCP connection. */
    public static final short NOT_CONNECTED = 10001;
    /** Another client holds exclusive produce access to the partition. */
    public static final short ACCESS_HELD = 10002;
    /** The broker's completion queue or slot region has no room for another client. */
    public static final short RESOURCES_EXHAUSTED = 10003;
    /** A WRITE WITH IMM named another segment or order than expected; produce access is revoked. */
    public static final short OUT_OF_ORDER_WRITE = 10004;
    /** The segment named in a roll request is no longer the active one; ask for access again. */
    public static final short STALE_SEGMENT = 10005;
    /**
     * Produce access to the segment was revoked before this write arrived, so it was not committed: a shared
     * reservation before it was never filled in time, or the grant was dropped (an earlier write of the same grant was
     * rejected or was a duplicate). Retriable: ask for access again and write it again.
     */
    public static final short ACCESS_REVOKED = 10006;

    /** The broker serves no shared memory ({@code shm.enabled=false}, or its directory failed); the reason travels. */
    public static final short SHM_UNAVAILABLE = 10007;
    /**
     * SHM_ATTACH carried a token other than the broker's: the client has not read it yet (the answer names the
     * directory), or cannot (another host, another OS user).
     */
    public static final short SHM_TOKEN_MISMATCH = 10008;

    private ControlErrorCodes() {}

    /**
     * Whether a write or access request answered with {@code code} may simply be made again after asking for access
     * again: the write was not committed (the broker commits nothing it answers with an error), and the condition can
     * pass (another producer gives access back, a corrupted write is written again from intact memory, as Kafka
     * retries CORRUPT_MESSAGE).
     */
    public static boolean isRetriable(final short code) {
        return switch (code) {
            case ACCESS_REVOKED,
                    ACCESS_HELD,
                    STALE_SEGMENT,
                    NOT_CONNECTED,
                    OUT_OF_ORDER_WRITE,
                    CORRUPT_MESSAGE,
                    OUT_OF_ORDER_SEQUENCE_NUMBER -> true;
            default -> false;
        };
    }

    /** A name for messages. */
    public static String name(final short code) {
        return switch (code) {
            case NONE -> "NONE";
            case OFFSET_OUT_OF_RANGE -> "OFFSET_OUT_OF_RANGE";
            case CORRUPT_MESSAGE -> "CORRUPT_MESSAGE";
            case UNKNOWN_TOPIC_OR_PARTITION -> "UNKNOWN_TOPIC_OR_PARTITION";
            case NOT_LEADER_OR_FOLLOWER -> "NOT_LEADER_OR_FOLLOWER";
            case REQUEST_TIMED_OUT -> "REQUEST_TIMED_OUT";
            case NOT_ENOUGH_REPLICAS -> "NOT_ENOUGH_REPLICAS";
            case NOT_ENOUGH_REPLICAS_AFTER_APPEND -> "NOT_ENOUGH_REPLICAS_AFTER_APPEND";
            case UNKNOWN_SERVER_ERROR -> "UNKNOWN_SERVER_ERROR";
            case INVALID_REQUEST -> "INVALID_REQUEST";
            case TOPIC_AUTHORIZATION_FAILED -> "TOPIC_AUTHORIZATION_FAILED";
            case CLUSTER_AUTHORIZATION_FAILED -> "CLUSTER_AUTHORIZATION_FAILED";
            case OUT_OF_ORDER_SEQUENCE_NUMBER -> "OUT_OF_ORDER_SEQUENCE_NUMBER";
            case DUPLICATE_SEQUENCE_NUMBER -> "DUPLICATE_SEQUENCE_NUMBER";
            case INVALID_PRODUCER_EPOCH -> "INVALID_PRODUCER_EPOCH";
            case RDMA_UNAVAILABLE -> "RDMA_UNAVAILABLE";
            case NOT_CONNECTED -> "NOT_CONNECTED";
            case ACCESS_HELD -> "ACCESS_HELD";
            case RESOURCES_EXHAUSTED -> "RESOURCES_EXHAUSTED";
            case OUT_OF_ORDER_WRITE -> "OUT_OF_ORDER_WRITE";
            case STALE_SEGMENT -> "STALE_SEGMENT";
            case ACCESS_REVOKED -> "ACCESS_REVOKED";
            case SHM_UNAVAILABLE -> "SHM_UNAVAILABLE";
            case SHM_TOKEN_MISMATCH -> "SHM_TOKEN_MISMATCH";
            default -> "UNKNOWN(" + code + ")";
        };
    }
}
