package io.isthmus.broker.shm;

import io.isthmus.broker.partition.Partition;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * One client's shared-memory session: bound to the TCP connection that attached (closing it ends the session), its
 * range of the slot file, the partitions it reads and those it produces to. Guarded by the {@link ShmControlPlane}'s monitor.
 */
final class ShmSession {
    final long connectionId;
    final KafkaPrincipal principal;
    final InetAddress host;
    final int slotRange;
    final List<ShmConsumeGrant> grants = new ArrayList<>();
    final List<ShmProduceGrant> produceGrants = new ArrayList<>();

    ShmSession(final long connectionId, final KafkaPrincipal principal, final InetAddress host, final int slotRange) {
        this.connectionId = connectionId;
        this.principal = principal;
        this.host = host;
        this.slotRange = slotRange;
    }

    ShmConsumeGrant grant(final Partition partition) {
        for (int i = 0; i < grants.size(); i++) {
            if (grants.get(i).partition == partition) {
                return grants.get(i);
            }
        }
        return null;
    }

    ShmProduceGrant produceGrant(final Partition partition) {
        for (int i = 0; i < produceGrants.size(); i++) {
            if (produceGrants.get(i).partition == partition) {
                return produceGrants.get(i);
            }
        }
        return null;
    }

    /** The produce grant whose staging file is {@code stagingId}, or null. */
    ShmProduceGrant produceGrant(final int stagingId) {
        for (int i = 0; i < produceGrants.size(); i++) {
            if (produceGrants.get(i).id() == stagingId) {
                return produceGrants.get(i);
            }
        }
        return null;
    }

    /** The lowest slot index of the range no grant uses, or -1. */
    int freeSlotIndex(final int slotsPerRange) {
        for (int candidate = 0; candidate < slotsPerRange; candidate++) {
            boolean taken = false;
            for (int i = 0; i < grants.size() && !taken; i++) {
                taken = grants.get(i).slotIndex == candidate;
            }
            if (!taken) {
                return candidate;
            }
        }
        return -1;
    }

    @Override
    public String toString() {
        return "ShmSession{connectionId=" + connectionId + ", principal=" + principal + ", slotRange=" + slotRange
                + ", grants=" + grants.size()
                + ", produceGrants=" + produceGrants.size() + '}';
    }
}
