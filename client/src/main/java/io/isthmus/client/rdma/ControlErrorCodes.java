package io.isthmus.client.rdma;

/**
 * Error codes of control responses and produce acknowledgements. Where Kafka has a code for the same condition it is
 * reused with Kafka's number; conditions only the RDMA datapath has use numbers from 10000 up.
 */
public final class ControlErrorCodes {
    public static final short NONE = 0;
    /** Kafka's OFFSET_OUT_OF_RANGE: the offset is not (or no longer, after retention) in the log. */
    public static final short OFFSET_OUT_OF_RANGE = 1;
    /** Kafka's CORRUPT_MESSAGE: a batch written over RDMA failed validation; produce access is revoked. */
    public static final short CORRUPT_MESSAGE = 2;
    /** Kafka's UNKNOWN_TOPIC_OR_PARTITION. */
    public static final short UNKNOWN_TOPIC_OR_PARTITION = 3;
    /** Kafka's UNKNOWN_SERVER_ERROR. */
    public static final short UNKNOWN_SERVER_ERROR = -1;
    /** Kafka's INVALID_REQUEST: a malformed control message or one out of protocol order. */
    public static final short INVALID_REQUEST = 42;
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
     * A shared reservation before this write was never filled in time, so the broker revoked produce access to the
     * segment: this write was not committed. Retriable: ask for access again and write it again.
     */
    public static final short ACCESS_REVOKED = 10006;

    private ControlErrorCodes() {}

    /** Whether a write answered with {@code code} may simply be written again after asking for access again. */
    public static boolean isRetriable(final short code) {
        return code == ACCESS_REVOKED;
    }

    /** A name for messages. */
    public static String name(final short code) {
        return switch (code) {
            case NONE -> "NONE";
            case OFFSET_OUT_OF_RANGE -> "OFFSET_OUT_OF_RANGE";
            case CORRUPT_MESSAGE -> "CORRUPT_MESSAGE";
            case UNKNOWN_TOPIC_OR_PARTITION -> "UNKNOWN_TOPIC_OR_PARTITION";
            case UNKNOWN_SERVER_ERROR -> "UNKNOWN_SERVER_ERROR";
            case INVALID_REQUEST -> "INVALID_REQUEST";
            case RDMA_UNAVAILABLE -> "RDMA_UNAVAILABLE";
            case NOT_CONNECTED -> "NOT_CONNECTED";
            case ACCESS_HELD -> "ACCESS_HELD";
            case RESOURCES_EXHAUSTED -> "RESOURCES_EXHAUSTED";
            case OUT_OF_ORDER_WRITE -> "OUT_OF_ORDER_WRITE";
            case STALE_SEGMENT -> "STALE_SEGMENT";
            case ACCESS_REVOKED -> "ACCESS_REVOKED";
            default -> "UNKNOWN(" + code + ")";
        };
    }
}
