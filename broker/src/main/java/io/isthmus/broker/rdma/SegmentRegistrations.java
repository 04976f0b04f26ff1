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
 * so taking one client's access away ends it at the NIC whoever else reads the segment. Producers and consumers get separate registrations of the same mapping: consumers' rkeys allow remote READ
 * only, so a consumer can never write into the log, and revoking a producer invalidates exactly its rkey.
 *
 * <p>Keyed by segment id (unique among mapped segments of the broker) and access kind. Confined to the datapath thread.
 */
public final class SegmentRegistrations implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SegmentRegistrations.class);
    private static final int WRITABLE_ACCESS =
            AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;
    private static final int READABLE_ACCESS = AccessFlags.REMOTE_READ;

    private final ProtectionDomain pd;
    private final Map<Integer, SegmentRegistration> byKey = new HashMap<>();
    private long registrations;
    private long deregistrations;

    public SegmentRegistrations(final ProtectionDomain pd) {
        this.pd = pd;
    }

    /**
     * The registration of {@code lease}'s segment for {@code writable} access, registering it if this is the first
     * user. Takes ownership of {@code lease}: it is kept by a new registration or closed when one exists already.
     */
    public SegmentRegistration acquire(final SegmentLease lease, final boolean writable) {
        final int key = key(lease.segment().id(), writable);
        SegmentRegistration registration = byKey.get(key);
        if (registration != null && registration.segment() != lease.segment()) {
            throw new IllegalStateException(
                    "segment id registered for another segment: " + registration + " newSegment=" + lease.segment());
        }
        if (registration == null) {
            final MemoryRegion region;
            try {
                region = pd.registerMemory(lease.memory(), writable ? WRITABLE_ACCESS : READABLE_ACCESS);
            } catch (final RuntimeException e) {
                lease.close();
                throw e;
            }
            registration = new SegmentRegistration(lease, region, writable);
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
            byKey.remove(key(registration.segment().id(), registration.writable()));
            registration.deregister();
            deregistrations++;
            LOG.debug("deregistered segment: {}", registration);
        }
    }

    /** Registrations alive now. */
    public int size() {
        return byKey.size();
    }

    /** Whether the segment with this id is registered for this kind of access. */
    public boolean isRegistered(final int segmentId, final boolean writable) {
        return byKey.containsKey(key(segmentId, writable));
    }

    public long registrations() {
        return registrations;
    }

    public long deregistrations() {
        return deregistrations;
    }

    private static int key(final int segmentId, final boolean writable) {
        return segmentId << 1 | (writable ? 1 : 0);
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
