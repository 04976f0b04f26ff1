package io.isthmus.broker.rdma;

import io.isthmus.broker.log.SegmentLease;
import io.isthmus.ffi.verbs.AccessFlags;
import io.isthmus.ffi.verbs.MemoryRegion;
import io.isthmus.ffi.verbs.ProtectionDomain;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One RDMA session's registrations of log segments, in the session's own protection domain: a segment's mapping is
 * registered the first time one of the session's grants needs it and deregistered when the last of them is released
 * (or revoked, e.g. after retention deleted it), never per request. Registrations are never shared between sessions,
 * so taking one client's access away ends it at the NIC whoever else reads the segment. They allow remote READ and
 * nothing else: no client ever holds an rkey that can write the log (producers write into their own {@link
 * ProduceStaging staging slots}, which the broker copies from).
 *
 * <p>Keyed by segment id (unique among mapped segments of the broker). Confined to the datapath thread.
 */
public final class SegmentRegistrations implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SegmentRegistrations.class);
    private static final int READABLE_ACCESS = AccessFlags.REMOTE_READ;

    private final ProtectionDomain pd;
    private final Map<Integer, SegmentRegistration> byKey = new HashMap<>();
    private long registrations;
    private long deregistrations;

    public SegmentRegistrations(final ProtectionDomain pd) {
        this.pd = pd;
    }

    /**
     * The registration of {@code lease}'s segment for remote READ, registering it if this is the first user. Takes
     * ownership of {@code lease}: it is kept by a new registration or closed when one exists already.
     */
    public SegmentRegistration acquire(final SegmentLease lease) {
        final int key = lease.segment().id();
        SegmentRegistration registration = byKey.get(key);
        if (registration != null && registration.segment() != lease.segment()) {
            throw new IllegalStateException(
                    "segment id registered for another segment: " + registration + " newSegment=" + lease.segment());
        }
        if (registration == null) {
            final MemoryRegion region;
            try {
                region = pd.registerMemory(lease.memory(), READABLE_ACCESS);
            } catch (final RuntimeException e) {
                lease.close();
                throw e;
            }
            registration = new SegmentRegistration(lease, region);
            byKey.put(key, registration);
            registrations++;
            LOG.debug("registered segment: {}", registration);
        } else {
            lease.close();
        }
        registration.retain();
        return registration;
    }

    /** Drops one user; the last one deregisters the memory and releases the lease. */
    public void release(final SegmentRegistration registration) {
        if (registration.releaseOne()) {
            byKey.remove(registration.segment().id());
            registration.deregister();
            deregistrations++;
            LOG.debug("deregistered segment: {}", registration);
        }
    }

    /** Registrations alive now. */
    public int size() {
        return byKey.size();
    }

    /** Whether the segment with this id is registered. */
    public boolean isRegistered(final int segmentId) {
        return byKey.containsKey(segmentId);
    }

    public long registrations() {
        return registrations;
    }

    public long deregistrations() {
        return deregistrations;
    }

    /** Deregisters everything (broker shutdown, after every grant was dropped). */
    @Override
    public void close() {
        for (final SegmentRegistration registration : new ArrayList<>(byKey.values())) {
            registration.deregister();
        }
        byKey.clear();
    }

    /** A snapshot for diagnostics. */
    public List<SegmentRegistration> snapshot() {
        return List.copyOf(byKey.values());
    }
}
