package io.isthmus.metadata.controller;

import io.isthmus.metadata.image.BrokerEndpoint;
import io.isthmus.metadata.image.BrokerRegistration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.AllocateProducerIdsRequestData;
import org.apache.kafka.common.message.AllocateProducerIdsResponseData;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.BrokerHeartbeatResponseData;
import org.apache.kafka.common.message.BrokerRegistrationRequestData;
import org.apache.kafka.common.message.BrokerRegistrationResponseData;
import org.apache.kafka.common.protocol.Errors;

/** Broker registration, the heartbeats that change a broker's fencing, and producer-id blocks. */
final class BrokerCommands {
    /**
     * Producer ids per block. A block is numbered by the log index of the command that allocated it, so blocks never
     * overlap and the image needs no counter: log indexes are unique and grow for the life of the quorum.
     */
    public static final int PRODUCER_ID_BLOCK_SIZE = 1000;

    private final String clusterId;
    private final ClusterState state;

    BrokerCommands(String clusterId, ClusterState state) {
        this.clusterId = clusterId;
        this.state = state;
    }

    /** Registers a broker, fenced, under the command's log index as its epoch. */
    BrokerRegistrationResponseData register(long index, BrokerRegistrationRequestData r) {
        BrokerRegistrationResponseData answer = new BrokerRegistrationResponseData();
        if (!clusterId.equals(r.clusterId())) {
            return answer.setErrorCode(Errors.INCONSISTENT_CLUSTER_ID.code());
        }
        BrokerRegistration existing = state.brokers.get(r.brokerId());
        if (existing != null && existing.incarnationId().equals(r.incarnationId())) {
            // The same process retrying (its first answer was lost): same epoch, nothing changes.
            return answer.setBrokerEpoch(existing.epoch());
        }
        if (existing != null) {
            // A restarted broker: whatever its previous incarnation led or was in sync for must not wait for it.
            state.fence(r.brokerId(), index);
        }
        List<BrokerEndpoint> endpoints = new ArrayList<>();
        for (BrokerRegistrationRequestData.Listener l : r.listeners()) {
            endpoints.add(new BrokerEndpoint(l.name(), l.host(), l.port(), l.securityProtocol()));
        }
        state.brokers.put(
                r.brokerId(), new BrokerRegistration(r.brokerId(), index, r.incarnationId(), endpoints, r.rack()));
        return answer.setBrokerEpoch(index);
    }

    /**
     * Fences a broker that asks to be (or shuts down); unfences a fenced one that heartbeats with metadata at least as
     * new as its registration.
     */
    BrokerHeartbeatResponseData heartbeat(long index, BrokerHeartbeatRequestData h) {
        BrokerHeartbeatResponseData answer = new BrokerHeartbeatResponseData();
        BrokerRegistration b = state.brokers.get(h.brokerId());
        if (b == null) {
            return answer.setErrorCode(Errors.BROKER_ID_NOT_REGISTERED.code()).setIsFenced(true);
        }
        if (b.epoch() != h.brokerEpoch()) {
            return answer.setErrorCode(Errors.STALE_BROKER_EPOCH.code()).setIsFenced(b.fenced());
        }
        if (h.wantFence() || h.wantShutDown()) {
            state.fence(b.id(), index);
            if (h.wantShutDown()) {
                state.brokers.put(b.id(), state.brokers.get(b.id()).shutDown());
            }
            return answer.setIsFenced(true).setShouldShutDown(h.wantShutDown()).setIsCaughtUp(true);
        }
        if (b.shuttingDown()) {
            // A heartbeat sent before its shutdown request, arriving after it: the broker stays fenced.
            return answer.setIsFenced(true).setShouldShutDown(true).setIsCaughtUp(true);
        }
        if (b.fenced()) {
            if (!isCaughtUp(b, h)) {
                return answer.setIsFenced(true).setIsCaughtUp(false);
            }
            state.unfence(b.id());
        }
        return answer.setIsFenced(false).setIsCaughtUp(true);
    }

    /**
     * Whether the broker's metadata has reached the command that last fenced it (its own registration, if nothing
     * since): one that has not seen the metadata it was fenced under could act on leaderships it has lost, at leader
     * epochs that were replaced meanwhile. Kafka requires the registration; the fence matters as well for a broker
     * that was fenced while paused and resumes with metadata from before its fence.
     */
    static boolean isCaughtUp(BrokerRegistration b, BrokerHeartbeatRequestData h) {
        return h.currentMetadataOffset() >= b.fencedAt();
    }

    /**
     * Hands a registered, active broker the block of producer ids numbered by this command's log index, as Kafka's
     * {@code AllocateProducerIds}: ids {@code [index * size, (index + 1) * size)}.
     */
    AllocateProducerIdsResponseData allocateProducerIds(long index, AllocateProducerIdsRequestData a) {
        AllocateProducerIdsResponseData answer = new AllocateProducerIdsResponseData();
        BrokerRegistration b = state.brokers.get(a.brokerId());
        if (b == null) {
            return answer.setErrorCode(Errors.BROKER_ID_NOT_REGISTERED.code());
        }
        if (b.epoch() != a.brokerEpoch()) {
            return answer.setErrorCode(Errors.STALE_BROKER_EPOCH.code());
        }
        return answer.setProducerIdStart(Math.multiplyExact(index, PRODUCER_ID_BLOCK_SIZE))
                .setProducerIdLen(PRODUCER_ID_BLOCK_SIZE);
    }
}
