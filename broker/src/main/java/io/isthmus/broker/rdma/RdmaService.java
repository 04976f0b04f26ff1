package io.isthmus.broker.rdma;

import io.isthmus.broker.network.ControlRequestHandler;
import io.isthmus.broker.partition.LeaderAccess;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.replication.PushAcceptance;
import io.isthmus.broker.security.Authorizer;
import io.isthmus.ffi.Rdma;
import io.isthmus.ffi.RdmaAvailability;
import io.isthmus.protocol.control.ControlApiKeys;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RDMA side of a broker as the broker assembles it: running with a {@link RdmaDatapath}, or off with a reason
 * ({@code rdma.enabled=false}, no rdma-core, no device, port down). Either way it answers control requests, and it
 * advertises the control API keys in ApiVersions only while running, so clients choose RDMA only when it works.
 */
public final class RdmaService implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaService.class);
    private static final List<Short> CONTROL_KEYS = List.of(
            ControlApiKeys.RDMA_CONNECT,
            ControlApiKeys.PRODUCE_ACCESS,
            ControlApiKeys.CONSUME_ACCESS,
            ControlApiKeys.RELEASE_ACCESS);
    private final RdmaDatapath datapath;
    private final String reason;
    private final RdmaControlHandler controlHandler;

    private RdmaService(final RdmaDatapath datapath, final String reason) {
        this.datapath = datapath;
        this.reason = reason;
        this.controlHandler = new RdmaControlHandler(datapath, reason);
    }

    /**
     * Starts the datapath when {@code rdma.enabled} and a device is usable; otherwise logs why and returns a service
     * that is off. Never throws for a missing library or device: the broker keeps serving TCP.
     */
    public static RdmaService start(
            final RdmaSettings settings,
            final PartitionManager partitions,
            final Authorizer authorizer,
            final LeaderAccess leaders,
            final PushAcceptance pushes) {
        if (!settings.enabled()) {
            return new RdmaService(null, "RDMA is disabled (rdma.enabled=false)");
        }
        final RdmaAvailability availability = Rdma.availability();
        if (!availability.usable()) {
            final String reason = "RDMA is unavailable: " + availability.reason();
            LOG.warn("rdma.enabled=true but {}; serving TCP only", reason);
            return new RdmaService(null, reason);
        }
        try {
            return new RdmaService(RdmaDatapath.start(settings, partitions, authorizer, leaders, pushes), null);
        } catch (final RuntimeException e) {
            final String reason = "RDMA device cannot serve: " + e.getMessage();
            LOG.warn("rdma.enabled=true but {}; serving TCP only", reason, e);
            return new RdmaService(null, reason);
        }
    }

    /**
     * The ACLs changed: RDMA sessions whose principal lost a grant it holds are closed, so that access ends at the NIC
     * as it ends for their next TCP request. Returns at once; the datapath thread does it.
     */
    public void reauthorize() {
        if (datapath != null) {
            datapath.reauthorize();
        }
    }

    public boolean isRunning() {
        return datapath != null;
    }

    /** Why RDMA is off, empty while running. */
    public Optional<String> unavailableReason() {
        return Optional.ofNullable(reason);
    }

    public RdmaControlHandler controlHandler() {
        return controlHandler;
    }

    /** The datapath while running. */
    public Optional<RdmaDatapath> datapath() {
        return Optional.ofNullable(datapath);
    }

    /** Adds the control API keys to an ApiVersions answer while RDMA is running; returns {@code versions}. */
    public ApiVersionsResponseData advertise(final ApiVersionsResponseData versions) {
        return datapath != null ? ControlRequestHandler.advertise(versions, CONTROL_KEYS) : versions;
    }

    @Override
    public void close() {
        if (datapath != null) {
            datapath.close();
        }
    }
}
