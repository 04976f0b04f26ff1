package io.isthmus.metadata.quorum;

import io.isthmus.metadata.image.BrokerRegistration;
import io.isthmus.metadata.image.ClusterImage;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.BrokerHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The quorum leader's view of which brokers are alive: when each last sent a heartbeat.
 *
 * <p>Soft state, held by the leader alone and never logged: a heartbeat that changes nothing costs no log entry.
 * Only a change of fencing is logged, as the broker's heartbeat itself: a fenced broker asking to be unfenced, or
 * (from {@link #expire}) an unfenced broker that has been silent longer than {@code broker.session.timeout.ms},
 * logged on its behalf with {@code wantFence}. A new leader knows no heartbeats, so it gives every broker two full
 * sessions from the moment it took over instead of fencing them all at once: a broker first has to find it, and a
 * heartbeat sent to the voter that was leader only fails after a whole request timeout (one session) before it is
 * sent again. With one session, as in Kafka's controller, a kill of the quorum's leader under load fenced every
 * surviving broker, and with them every replica but one of each partition's ISR. Waiting longer is safe: a lease
 * the old leader granted ran out one session after its heartbeat was sent, before this leader took over plus one.
 */
final class BrokerSessions {
    private static final Logger LOG = LoggerFactory.getLogger(BrokerSessions.class);

    private final long timeoutNanos;
    private final LongSupplier clock;
    private final Map<Integer, Long> lastHeartbeat = new ConcurrentHashMap<>();
    private final Set<Integer> fencing = ConcurrentHashMap.newKeySet();
    private volatile boolean leader;
    private volatile long leaderSince;
    private volatile Function<ApiMessage, CompletableFuture<ApiMessage>> log;

    BrokerSessions(Duration timeout, LongSupplier clock) {
        this.timeoutNanos = timeout.toNanos();
        this.clock = clock;
    }

    /** Where commands go to be logged: through the quorum, to whichever voter leads. */
    void logThrough(Function<ApiMessage, CompletableFuture<ApiMessage>> submit) {
        this.log = submit;
    }

    void onLeaderChange(boolean nowLeader) {
        if (nowLeader) {
            lastHeartbeat.clear();
            leaderSince = clock.getAsLong();
        }
        leader = nowLeader;
    }

    CompletableFuture<BrokerHeartbeatResponseData> onHeartbeat(BrokerHeartbeatRequestData h, ClusterImage image) {
        if (!leader) {
            // Answered rather than failed: Ratis serves reads on followers too and would not redirect a failure, so the
            // broker's client asks the next voter on this answer, as a Kafka broker does on NOT_CONTROLLER.
            return CompletableFuture.completedFuture(new BrokerHeartbeatResponseData()
                    .setErrorCode(Errors.NOT_CONTROLLER.code())
                    .setIsFenced(true));
        }
        Optional<BrokerRegistration> registration = image.broker(h.brokerId());
        if (registration.isEmpty()) {
            return CompletableFuture.completedFuture(new BrokerHeartbeatResponseData()
                    .setErrorCode(Errors.BROKER_ID_NOT_REGISTERED.code())
                    .setIsFenced(true));
        }
        BrokerRegistration b = registration.get();
        if (b.epoch() != h.brokerEpoch()) {
            return CompletableFuture.completedFuture(new BrokerHeartbeatResponseData()
                    .setErrorCode(Errors.STALE_BROKER_EPOCH.code())
                    .setIsFenced(true));
        }
        lastHeartbeat.put(b.id(), clock.getAsLong());
        if (b.shuttingDown() && !h.wantShutDown()) {
            return CompletableFuture.completedFuture(new BrokerHeartbeatResponseData()
                    .setIsFenced(true)
                    .setShouldShutDown(true)
                    .setIsCaughtUp(true));
        }
        if (fencing.contains(b.id())) {
            // Its fence is being logged: answering from the image, which does not show it yet, would grant a lease
            // that outlasts the fence.
            return CompletableFuture.completedFuture(
                    new BrokerHeartbeatResponseData().setIsFenced(true).setIsCaughtUp(true));
        }
        boolean wantsFenced = h.wantFence() || h.wantShutDown();
        boolean caughtUp = h.currentMetadataOffset() >= b.fencedAt();
        if ((b.fenced() == wantsFenced || (b.fenced() && !caughtUp)) && !h.wantShutDown()) {
            // Nothing to log: no change, or an unfencing the broker's metadata is not ready for.
            return CompletableFuture.completedFuture(
                    new BrokerHeartbeatResponseData().setIsFenced(b.fenced()).setIsCaughtUp(caughtUp));
        }
        return log.apply(h).thenApply(BrokerHeartbeatResponseData.class::cast);
    }

    /** Fences every unfenced broker silent for longer than the session timeout; the leader runs this periodically. */
    void expire(Supplier<ClusterImage> images) {
        if (!leader) {
            return;
        }
        long now = clock.getAsLong();
        for (BrokerRegistration b : images.get().brokers().values()) {
            long last = lastHeartbeat.getOrDefault(b.id(), leaderSince + timeoutNanos);
            if (b.fenced() || now - last <= timeoutNanos || !fencing.add(b.id())) {
                continue;
            }
            LOG.warn(
                    "broker {} (epoch {}) sent no heartbeat for {} ms; fencing it",
                    b.id(),
                    b.epoch(),
                    (now - last) / 1_000_000);
            BrokerHeartbeatRequestData fence = new BrokerHeartbeatRequestData()
                    .setBrokerId(b.id())
                    .setBrokerEpoch(b.epoch())
                    .setWantFence(true);
            log.apply(fence).whenComplete((answer, failure) -> {
                fencing.remove(b.id());
                if (failure != null) {
                    LOG.warn("fencing broker {} failed; the next check tries again", b.id(), failure);
                }
            });
        }
    }
}
