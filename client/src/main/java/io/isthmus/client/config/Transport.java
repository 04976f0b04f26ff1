package io.isthmus.client.config;

import io.isthmus.ffi.Rdma;
import io.isthmus.ffi.RdmaAvailability;
import java.util.Locale;

/**
 * The datapath a client uses ({@code transport} setting): the Kafka protocol over TCP, one-sided RDMA, shared memory
 * with a broker on the same host ({@code shm}), or {@code auto} (shared memory where the broker is on this host and
 * grants it, then RDMA where both sides can, else TCP).
 */
public enum Transport {
    TCP,
    RDMA,
    SHM,
    AUTO;

    /** How every refusal of {@code transport=shm} starts. */
    public static final String SHM_UNAVAILABLE = "shared-memory transport is not available: ";

    /** How every refusal of {@code transport=rdma} starts. */
    public static final String RDMA_UNAVAILABLE = "RDMA transport is not available: ";

    public static Transport forName(final String name) {
        try {
            return valueOf(name.trim().toUpperCase(Locale.ROOT));
        } catch (final IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "unknown transport: transport=" + name + ", allowed=tcp|rdma|shm|auto", e);
        }
    }

    /**
     * The transport actually used, probing this host's devices ({@link Rdma#availability()}) unless TCP was asked for.
     *
     * @param brokerAdvertisesRdma whether the broker lists the isthmus control keys in ApiVersions (its RDMA datapath
     *     runs)
     * @throws UnsupportedOperationException for {@code rdma} where it cannot work, with the reason
     */
    public Transport resolve(final boolean brokerAdvertisesRdma) {
        if (this == TCP) {
            return TCP;
        }
        return resolve(Rdma.availability(), brokerAdvertisesRdma);
    }

    /**
     * The transport used given this host's RDMA availability and the broker's answer: {@code tcp} is TCP; {@code auto}
     * is RDMA when both can, else TCP; {@code rdma} is RDMA or refused.
     *
     * @throws UnsupportedOperationException for {@code rdma} where it cannot work, with the reason
     * @throws IllegalStateException for {@code shm}, which clients resolve before this (by attaching to the broker)
     */
    public Transport resolve(final RdmaAvailability local, final boolean brokerAdvertisesRdma) {
        return switch (this) {
            case TCP -> TCP;
            case SHM ->
                throw new IllegalStateException(
                        "transport=shm is resolved by attaching to the broker, before RDMA is considered");
            case AUTO -> local.usable() && brokerAdvertisesRdma ? RDMA : TCP;
            case RDMA -> {
                if (!local.usable()) {
                    throw new UnsupportedOperationException(
                            RDMA_UNAVAILABLE + local.reason() + "; use --transport tcp or auto");
                }
                if (!brokerAdvertisesRdma) {
                    throw new UnsupportedOperationException(RDMA_UNAVAILABLE
                            + "the broker does not advertise the isthmus RDMA control requests (rdma.enabled=false,"
                            + " or no usable device there); use --transport tcp or auto");
                }
                yield RDMA;
            }
        };
    }

    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
