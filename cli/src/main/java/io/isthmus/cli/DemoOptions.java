package io.isthmus.cli;

import io.isthmus.client.config.Transport;

/**
 * What the demo does: how many records of what size into how many partitions, over which transport, against which
 * broker. {@code topic} null: a fresh topic named after the start time.
 */
public record DemoOptions(
        String bootstrapServers, long records, int recordSize, int partitions, Transport transport, String topic) {
    public static final long DEFAULT_RECORDS = 1_000_000;
    public static final int DEFAULT_SIZE = 100;
    public static final int DEFAULT_PARTITIONS = 1;

    public DemoOptions {
        if (bootstrapServers == null || bootstrapServers.isBlank()) {
            throw new IllegalArgumentException("demo needs a broker: --bootstrap host:port");
        }
        if (records < 1) {
            throw new IllegalArgumentException("--records must be >= 1: records=" + records);
        }
        if (recordSize < 8) {
            throw new IllegalArgumentException(
                    "--size must be >= 8 (the value carries its sequence number and send time): size=" + recordSize);
        }
        if (partitions < 1) {
            throw new IllegalArgumentException("--partitions must be >= 1: partitions=" + partitions);
        }
    }

    public static DemoOptions defaults(final String bootstrapServers) {
        return new DemoOptions(
                bootstrapServers, DEFAULT_RECORDS, DEFAULT_SIZE, DEFAULT_PARTITIONS, Transport.AUTO, null);
    }
}
