package io.isthmus.metadata.image;

import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.Uuid;

/**
 * A broker as the quorum knows it.
 *
 * <p>The broker epoch is the quorum log index of the registration, so a broker that restarts (a new incarnation)
 * registers under a larger epoch, and a request carrying the old epoch is recognisably stale. A fenced broker
 * leads nothing and is in no ISR it could leave; it is unfenced when its heartbeat says it is ready.
 *
 * @param id the broker's {@code node.id}
 * @param epoch the quorum log index of this registration
 * @param incarnationId random per broker process start; tells a restart from a retried registration
 * @param endpoints the listeners the broker advertised
 * @param rack the broker's rack, or null
 * @param fenced whether the broker may lead or be in an ISR
 * @param shuttingDown whether this incarnation asked for a controlled shutdown: it stays fenced until it registers
 *     again, whatever heartbeat of its arrives late
 * @param fencedAt the quorum log index of the command that last fenced this registration (its epoch, the registration,
 *     until something else fences it): the broker is unfenced only by a heartbeat whose metadata offset has reached
 *     it, so a broker that was fenced while paused or cut off never leads again on metadata from before its fence
 */
public record BrokerRegistration(
        int id,
        long epoch,
        Uuid incarnationId,
        List<BrokerEndpoint> endpoints,
        String rack,
        boolean fenced,
        boolean shuttingDown,
        long fencedAt) {
    public BrokerRegistration {
        Objects.requireNonNull(incarnationId, "incarnationId");
        endpoints = List.copyOf(endpoints);
        if (shuttingDown && !fenced) {
            throw new IllegalArgumentException("broker " + id + " shutting down must be fenced");
        }
        if (fencedAt < epoch) {
            throw new IllegalArgumentException(
                    "broker " + id + " fenced at index " + fencedAt + ", before its registration at " + epoch);
        }
    }

    /** A registration as its command makes it: fenced at its own index. */
    public BrokerRegistration(int id, long epoch, Uuid incarnationId, List<BrokerEndpoint> endpoints, String rack) {
        this(id, epoch, incarnationId, endpoints, rack, true, false, epoch);
    }

    /** This registration fenced by the command at log {@code index}. */
    public BrokerRegistration fencedBy(long index) {
        return new BrokerRegistration(id, epoch, incarnationId, endpoints, rack, true, shuttingDown, index);
    }

    /** This registration unfenced. */
    public BrokerRegistration unfenced() {
        return fenced
                ? new BrokerRegistration(id, epoch, incarnationId, endpoints, rack, false, false, fencedAt)
                : this;
    }

    /** This registration fenced for good: its broker is shutting down. */
    public BrokerRegistration shutDown() {
        return new BrokerRegistration(id, epoch, incarnationId, endpoints, rack, true, true, fencedAt);
    }
}
