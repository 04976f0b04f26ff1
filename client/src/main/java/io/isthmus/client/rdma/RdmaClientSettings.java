package io.isthmus.client.rdma;

import io.isthmus.client.config.ConfigReader;
import io.isthmus.client.security.SecuritySettings;

/**
 * The {@code rdma.*} settings of a producer or consumer that uses the RDMA transport.
 *
 * @param device the RDMA device (e.g. {@code mlx5_0}, {@code rxe0}); null: the first one
 * @param port the device port
 * @param gidIndex the GID table index of the port (on RoCE v2 the IPv4-mapped GID, usually 1)
 * @param readBytes the most bytes one RDMA READ of a consumer brings, and the size of each registered READ target
 * @param credits acknowledgements a producer keeps receives posted for (the broker may grant fewer)
 * @param requestTimeoutMs how long a control request or an RDMA completion may take
 * @param sharedProduce whether a producer asks for shared produce access (reserving space with FETCH_AND_ADD, next to
 *     other producers) instead of exclusive access
 * @param security how the control connection authenticates (the principal every RDMA grant is checked against)
 */
public record RdmaClientSettings(
        String device,
        int port,
        int gidIndex,
        int readBytes,
        int credits,
        long requestTimeoutMs,
        boolean sharedProduce,
        SecuritySettings security) {
    public static final String DEVICE = "rdma.device";
    public static final String PORT = "rdma.port";
    public static final String GID_INDEX = "rdma.gid.index";
    public static final String READ_BYTES = "rdma.read.bytes";
    public static final String CREDITS = "rdma.produce.credits";
    public static final String PRODUCE_MODE = "rdma.produce.mode";
    public static final String MODE_EXCLUSIVE = "exclusive";
    public static final String MODE_SHARED = "shared";

    public static final int DEFAULT_PORT = 1;
    public static final int DEFAULT_GID_INDEX = 1;
    public static final int DEFAULT_READ_BYTES = 1024 * 1024;
    public static final int DEFAULT_CREDITS = 32;

    public RdmaClientSettings {
        if (port < 1 || gidIndex < 0 || readBytes < 4096 || credits < 1 || requestTimeoutMs < 1) {
            throw new IllegalArgumentException("invalid RDMA client settings: device=" + device + " port=" + port
                    + " gidIndex=" + gidIndex + " readBytes=" + readBytes + " (at least 4096) credits=" + credits
                    + " requestTimeoutMs=" + requestTimeoutMs);
        }
    }

    /** Defaults, with the request timeout given. */
    public static RdmaClientSettings defaults(final long requestTimeoutMs) {
        return new RdmaClientSettings(
                null,
                DEFAULT_PORT,
                DEFAULT_GID_INDEX,
                DEFAULT_READ_BYTES,
                DEFAULT_CREDITS,
                requestTimeoutMs,
                false,
                SecuritySettings.PLAINTEXT);
    }

    /**
     * The {@code rdma.*} settings from a client's configuration; {@code rdma.produce.mode} is only settable where the
     * client lists it as known (producers), and is exclusive otherwise.
     */
    public static RdmaClientSettings from(
            final ConfigReader r, final long requestTimeoutMs, final SecuritySettings security) {
        return new RdmaClientSettings(
                r.string(DEVICE, null),
                r.integer(PORT, DEFAULT_PORT, 1),
                r.integer(GID_INDEX, DEFAULT_GID_INDEX, 0),
                r.integer(READ_BYTES, DEFAULT_READ_BYTES, 4096),
                r.integer(CREDITS, DEFAULT_CREDITS, 1),
                requestTimeoutMs,
                parseSharedProduce(r.string(PRODUCE_MODE, null)),
                security);
    }

    /** {@code rdma.produce.mode}: {@code exclusive} (the default) or {@code shared}. */
    public static boolean parseSharedProduce(final String mode) {
        if (mode == null || mode.equalsIgnoreCase(MODE_EXCLUSIVE)) {
            return false;
        }
        if (mode.equalsIgnoreCase(MODE_SHARED)) {
            return true;
        }
        throw new IllegalArgumentException(
                PRODUCE_MODE + " must be " + MODE_EXCLUSIVE + " or " + MODE_SHARED + ": " + mode);
    }
}
