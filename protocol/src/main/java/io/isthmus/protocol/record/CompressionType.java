package io.isthmus.protocol.record;

/** Compression codec of a record batch: bits 0-2 of the batch attributes. Ids match Kafka's. */
public enum CompressionType {
    NONE(0, "none"),
    GZIP(1, "gzip"),
    SNAPPY(2, "snappy"),
    LZ4(3, "lz4"),
    ZSTD(4, "zstd");

    private static final CompressionType[] BY_ID = values();

    private final int id;
    private final String configName;

    CompressionType(final int id, final String configName) {
        this.id = id;
        this.configName = configName;
    }

    /** The codec id stored in the attributes. */
    public int id() {
        return id;
    }

    /** Kafka's name for it, as used by {@code compression.type}. */
    public String configName() {
        return configName;
    }

    /** True when the id names a known codec. */
    public static boolean isKnown(final int id) {
        return id >= 0 && id < BY_ID.length;
    }

    /**
     * The codec for an id.
     *
     * @throws IllegalArgumentException for an unknown id (the record readers report it as an
     *     {@link InvalidRecordBatchException} with reason {@link InvalidRecordBatchException.Reason#UNKNOWN_COMPRESSION}).
     */
    public static CompressionType forId(final int id) {
        if (!isKnown(id)) {
            throw new IllegalArgumentException("unknown compression codec id " + id);
        }
        return BY_ID[id];
    }

    /** The codec for a Kafka config name ({@code none, gzip, snappy, lz4, zstd}). */
    public static CompressionType forName(final String name) {
        for (final CompressionType type : BY_ID) {
            if (type.configName.equalsIgnoreCase(name)) {
                return type;
            }
        }
        throw new IllegalArgumentException("unknown compression type " + name);
    }
}
