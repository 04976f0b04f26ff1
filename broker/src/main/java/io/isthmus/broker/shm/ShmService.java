package io.isthmus.broker.shm;

import io.isthmus.broker.network.ControlRequestHandler;
import io.isthmus.broker.partition.LeaderAccess;
import io.isthmus.broker.partition.PartitionManager;
import io.isthmus.broker.security.Authorizer;
import io.isthmus.protocol.control.ControlApiKeys;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shared-memory side of a broker as the broker assembles it: running (a {@link ShmDirectory} for this life, a
 * {@link ShmControlPlane}, and a sweeper that revokes access to segments retention deleted and, in a cluster, access granted under a leadership
 * this broker no longer holds), or off with a reason
 * ({@code shm.enabled=false}, a directory that cannot be written). Either way it answers its control requests, and it
 * advertises their API keys in ApiVersions only while running.
 */
public final class ShmService implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ShmService.class);
    private static final long SWEEP_INTERVAL_MS = 200;
    private static final List<Short> CONTROL_KEYS = List.of(
            ControlApiKeys.SHM_ATTACH,
            ControlApiKeys.SHM_CONSUME_ACCESS,
            ControlApiKeys.SHM_RELEASE_ACCESS,
            ControlApiKeys.SHM_PRODUCE_ACCESS,
            ControlApiKeys.SHM_PRODUCE);

    private final ShmDirectory directory;
    private final ShmControlPlane plane;
    private final ScheduledExecutorService sweeper;
    private final String reason;
    private final ShmControlHandler controlHandler;

    private ShmService(
            final ShmDirectory directory,
            final ShmControlPlane plane,
            final ScheduledExecutorService sweeper,
            final String reason) {
        this.directory = directory;
        this.plane = plane;
        this.sweeper = sweeper;
        this.reason = reason;
        this.controlHandler = new ShmControlHandler(plane, reason);
    }

    /**
     * Opens the shared-memory directory and starts serving, unless {@code shm.enabled=false}; a directory that cannot
     * be prepared is logged and leaves shared memory off (the broker keeps serving TCP). Never throws.
     */
    public static ShmService start(
            final ShmSettings settings,
            final PartitionManager partitions,
            final Authorizer authorizer,
            final LeaderAccess leaders) {
        if (!settings.enabled()) {
            return new ShmService(null, null, null, "shared memory is disabled (shm.enabled=false)");
        }
        final ShmDirectory directory;
        try {
            directory =
                    ShmDirectory.open(settings.directory(), settings.maxConnections(), settings.slotsPerConnection());
        } catch (final RuntimeException e) {
            final String reason = "the shared-memory directory cannot be prepared: " + e.getMessage();
            LOG.warn("shm.enabled=true but {}; serving without shared memory", reason, e);
            return new ShmService(null, null, null, reason);
        }
        final ShmControlPlane plane = new ShmControlPlane(directory, settings, partitions, authorizer, leaders);
        final ScheduledExecutorService sweeper = Executors.newSingleThreadScheduledExecutor(runnable -> {
            final Thread thread = new Thread(runnable, "isthmus-shm-sweeper");
            thread.setDaemon(true);
            return thread;
        });
        sweeper.scheduleWithFixedDelay(
                () -> {
                    try {
                        plane.sweepDeletedSegments();
                        plane.revokeLostLeadership();
                    } catch (final RuntimeException e) {
                        LOG.error("shared-memory sweep failed; carrying on", e);
                    }
                },
                SWEEP_INTERVAL_MS,
                SWEEP_INTERVAL_MS,
                TimeUnit.MILLISECONDS);
        return new ShmService(directory, plane, sweeper, null);
    }

    public boolean isRunning() {
        return plane != null;
    }

    /** Why shared memory is off, empty while running. */
    public Optional<String> unavailableReason() {
        return Optional.ofNullable(reason);
    }

    public ShmControlHandler controlHandler() {
        return controlHandler;
    }

    /** The ACLs changed: grants their principal lost are revoked. */
    public void reauthorize() {
        if (plane != null) {
            plane.reauthorize();
        }
    }

    /** Revokes grants of deleted segments now (the sweeper does it every 200 ms); returns how many. */
    public int sweepDeletedSegments() {
        return plane == null ? 0 : plane.sweepDeletedSegments();
    }

    /** Revokes grants made under a leadership this broker lost now (the sweeper does it every 200 ms); how many. */
    public int revokeLostLeadership() {
        return plane == null ? 0 : plane.revokeLostLeadership();
    }

    /** Sessions open now. */
    public int sessionCount() {
        return plane == null ? 0 : plane.sessionCount();
    }

    /** Consume grants held now, over every session. */
    public int grantCount() {
        return plane == null ? 0 : plane.grantCount();
    }

    /** Staging files held by producers: one per session and partition they produce to. */
    public int produceGrantCount() {
        return plane == null ? 0 : plane.produceGrantCount();
    }

    /** Grants revoked since start (deleted segments, ACL changes, leadership moves). */
    public long revokedGrants() {
        return plane == null ? 0 : plane.revokedGrants();
    }

    /** Adds the shared-memory control API keys to an ApiVersions answer while running; returns {@code versions}. */
    public ApiVersionsResponseData advertise(final ApiVersionsResponseData versions) {
        return plane != null ? ControlRequestHandler.advertise(versions, CONTROL_KEYS) : versions;
    }

    /** Stops the sweeper, ends every session and marks the slot file CLOSED, in that order. */
    @Override
    public void close() {
        if (plane == null) {
            return;
        }
        sweeper.shutdownNow();
        plane.close();
        directory.close();
    }
}
