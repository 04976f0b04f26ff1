package io.isthmus.protocol.record;

/** Timestamp type of a record batch: bit 3 of the batch attributes. */
public enum TimestampType {
    /** The producer's timestamp of each record. */
    CREATE_TIME(0, "CreateTime"),
    /** The broker's append time, stored as the batch's max timestamp and applying to every record in it. */
    LOG_APPEND_TIME(1, "LogAppendTime");

    private final int id;
    private final String displayName;

    TimestampType(final int id, final String displayName) {
        this.id = id;
        this.displayName = displayName;
    }

    public int id() {
        return id;
    }

    /** Kafka's name for it, e.g. {@code message.timestamp.type=LogAppendTime}. */
    public String displayName() {
        return displayName;
    }

    public static TimestampType forId(final int id) {
        return switch (id) {
            case 0 -> CREATE_TIME;
            case 1 -> LOG_APPEND_TIME;
            default -> throw new IllegalArgumentException("unknown timestamp type id " + id);
        };
    }
}
