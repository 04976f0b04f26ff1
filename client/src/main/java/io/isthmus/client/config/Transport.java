package io.isthmus.client.config;

import java.util.Locale;

/**
 * The datapath a client uses ({@code transport} setting): the Kafka protocol over TCP, one-sided RDMA, or {@code auto}
 * (RDMA where both sides can, else TCP).
 */
public enum Transport {
    TCP,
    RDMA,
    AUTO;

    /** Why the RDMA datapath cannot be used by this build. */
    public static final String RDMA_UNAVAILABLE = "RDMA transport is not available: this client build has no RDMA "
            + "datapath yet (only the Kafka protocol over TCP); use --transport tcp or auto";

    public static Transport forName(final String name) {
        try {
            return valueOf(name.trim().toUpperCase(Locale.ROOT));
        } catch (final IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown transport: transport=" + name + ", allowed=tcp|rdma|auto", e);
        }
    }

    /**
     * The transport actually used for a requested one: {@code auto} and {@code tcp} give TCP.
     *
     * @throws UnsupportedOperationException for {@code rdma}, with the reason
     */
    public Transport resolve() {
        if (this == RDMA) {
            throw new UnsupportedOperationException(RDMA_UNAVAILABLE);
        }
        return TCP;
    }

    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
