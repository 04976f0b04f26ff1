package io.isthmus.metadata.broker;

import io.isthmus.metadata.image.BrokerEndpoint;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.BrokerHeartbeatResponseData;
import org.apache.kafka.common.message.BrokerRegistrationRequestData;
import org.apache.kafka.common.message.BrokerRegistrationResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One broker's membership of the cluster, as Kafka's {@code BrokerLifecycleManager} keeps it: it registers (under a
 * new incarnation id per process), heartbeats every {@code broker.heartbeat.interval.ms}, and on close asks for a
 * controlled shutdown, so the quorum moves its leaderships away before the process goes.
 *
 * <p>{@link #isActive()} is the broker's own lease on the right to lead: true only while the last heartbeat the
 * quorum answered said "unfenced" and was <em>sent</em> less than {@code broker.session.timeout.ms} ago. The quorum
 * fences a broker it has not heard from for that long, measured from when it received the heartbeat, which is after
 * it was sent; so a broker that was paused or cut off stops leading no later than the quorum gives its partitions
 * to others, without waiting to hear so.
 *
 * <p>A heartbeat answered {@code STALE_BROKER_EPOCH} means another process registered this broker id since: this one
 * is superseded for good and stays inactive.
 */
public final class BrokerLifecycle implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BrokerLifecycle.class);

    /** Where the broker is in its life; only {@link #ACTIVE} may lead. */
    public enum State {
        REGISTERING,
        /** Registered, not (or no longer) allowed to lead: its heartbeats will unfence it. */
        FENCED,
        ACTIVE,
        /** The quorum refused the registration (another cluster's quorum, for one). */
        REFUSED,
        /** Another process registered this broker id since. */
        SUPERSEDED,
        SHUT_DOWN
    }

    private final ControllerChannel controller;
    private final BrokerRegistrationRequestData registration;
    private final long heartbeatIntervalMillis;
    private final long leaseNanos;
    private final LongSupplier metadataOffset;
    private final LongSupplier clock;
    private final ScheduledExecutorService timer;

    /** Changed by {@link #advance}, which never leaves a final state (refused, superseded, shut down), and by shutDown. */
    private final AtomicReference<State> state = new AtomicReference<>(State.REGISTERING);

    private volatile long brokerEpoch = -1;
    /** When the last heartbeat answered "unfenced" was sent, by {@link #clock}. */
    private volatile long leaseStart;

    /** Touched on the timer thread only. */
    private boolean heartbeatInFlight;

    private final long requestTimeoutMillis;

    /**
     * @param controller how the broker reaches the quorum
     * @param identity what it registers as
     * @param heartbeatInterval {@code broker.heartbeat.interval.ms}
     * @param sessionTimeout {@code broker.session.timeout.ms}, as the quorum applies it
     * @param metadataOffset how far the broker's metadata has come (the quorum log index it has applied): the quorum
     *     unfences it only once that reaches its registration
     * @param clock nanoseconds, for the lease
     */
    public BrokerLifecycle(
            ControllerChannel controller,
            BrokerIdentity identity,
            Duration heartbeatInterval,
            Duration sessionTimeout,
            LongSupplier metadataOffset,
            LongSupplier clock) {
        if (heartbeatInterval.compareTo(sessionTimeout) >= 0) {
            throw new IllegalArgumentException("broker.heartbeat.interval.ms (" + heartbeatInterval.toMillis()
                    + ") must be shorter than broker.session.timeout.ms (" + sessionTimeout.toMillis() + ")");
        }
        this.controller = Objects.requireNonNull(controller, "controller");
        this.registration = new BrokerRegistrationRequestData()
                .setBrokerId(identity.id())
                .setClusterId(identity.clusterId())
                .setIncarnationId(Uuid.randomUuid())
                .setRack(identity.rack());
        for (BrokerEndpoint e : identity.endpoints()) {
            registration
                    .listeners()
                    .add(new BrokerRegistrationRequestData.Listener()
                            .setName(e.listener())
                            .setHost(e.host())
                            .setPort(e.port())
                            .setSecurityProtocol(e.securityProtocol()));
        }
        this.metadataOffset = metadataOffset;
        this.heartbeatIntervalMillis = heartbeatInterval.toMillis();
        this.leaseNanos = sessionTimeout.toNanos();
        this.requestTimeoutMillis = sessionTimeout.toMillis();
        this.clock = clock;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "broker-" + identity.id() + "-lifecycle");
            t.setDaemon(true);
            return t;
        });
    }

    /** Registers and starts heartbeating, in the background; {@link #awaitActive} waits for the outcome. */
    public void start() {
        timer.scheduleWithFixedDelay(this::tick, 0, heartbeatIntervalMillis, TimeUnit.MILLISECONDS);
    }

    public int brokerId() {
        return registration.brokerId();
    }

    /** The epoch the quorum gave this registration, or -1 before it answered. */
    public long brokerEpoch() {
        return brokerEpoch;
    }

    public State state() {
        State s = state.get();
        return s == State.ACTIVE && !leaseHeld() ? State.FENCED : s;
    }

    /** Whether this broker may lead now: unfenced at its last answered heartbeat, and that heartbeat is recent. */
    public boolean isActive() {
        return state() == State.ACTIVE;
    }

    private boolean leaseHeld() {
        return clock.getAsLong() - leaseStart < leaseNanos;
    }

    /** Waits until this broker is active. */
    public void awaitActive(Duration timeout) throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!isActive()) {
            State s = state.get();
            if (isFinal(s)) {
                throw new IllegalStateException("broker " + brokerId() + " can no longer become active: " + s);
            }
            if (System.nanoTime() > deadline) {
                throw new TimeoutException(
                        "broker " + brokerId() + " not active after " + timeout.toMillis() + " ms; it is " + s);
            }
            Thread.sleep(10);
        }
    }

    private static boolean isFinal(State s) {
        return s == State.REFUSED || s == State.SUPERSEDED || s == State.SHUT_DOWN;
    }

    /** Moves to {@code next} unless a final state was reached meanwhile (on any thread). */
    private void advance(State next) {
        state.updateAndGet(now -> isFinal(now) ? now : next);
    }

    /** One step of the lifecycle, on the timer thread: register until answered, then heartbeat. */
    private void tick() {
        State s = state.get();
        if (isFinal(s) || heartbeatInFlight) {
            return;
        }
        heartbeatInFlight = true;
        CompletableFuture<?> step;
        try {
            // Bounded: an answer that never comes must not stop the heartbeats behind it.
            step = (s == State.REGISTERING ? register() : heartbeat())
                    .orTimeout(requestTimeoutMillis, TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            step = CompletableFuture.failedFuture(e);
        }
        step.whenComplete((ignored, failure) -> {
            if (failure != null) {
                LOG.warn(
                        "broker {}: {} failed, trying again in {} ms: {}",
                        brokerId(),
                        s == State.REGISTERING ? "registration" : "heartbeat",
                        heartbeatIntervalMillis,
                        failure.toString());
            }
            try {
                timer.execute(() -> heartbeatInFlight = false);
            } catch (RejectedExecutionException shutDown) {
                // shut down meanwhile: nothing more to send
            }
        });
    }

    private CompletableFuture<?> register() {
        return controller.registerBroker(registration).thenAccept(this::onRegistered);
    }

    private void onRegistered(BrokerRegistrationResponseData answer) {
        Errors error = Errors.forCode(answer.errorCode());
        if (error != Errors.NONE) {
            LOG.error("broker {}: the quorum refused its registration: {}", brokerId(), error);
            advance(State.REFUSED);
            return;
        }
        brokerEpoch = answer.brokerEpoch();
        advance(State.FENCED);
        LOG.info("broker {} registered with epoch {}", brokerId(), brokerEpoch);
    }

    private CompletableFuture<?> heartbeat() {
        long sentAt = clock.getAsLong();
        BrokerHeartbeatRequestData request = new BrokerHeartbeatRequestData()
                .setBrokerId(brokerId())
                .setBrokerEpoch(brokerEpoch)
                .setCurrentMetadataOffset(metadataOffset.getAsLong());
        return controller.heartbeat(request).thenAccept(answer -> onHeartbeat(answer, sentAt));
    }

    private void onHeartbeat(BrokerHeartbeatResponseData answer, long sentAt) {
        Errors error = Errors.forCode(answer.errorCode());
        if (error == Errors.STALE_BROKER_EPOCH || error == Errors.BROKER_ID_NOT_REGISTERED) {
            LOG.error(
                    "broker {} (epoch {}) was superseded: {}; it will not lead again", brokerId(), brokerEpoch, error);
            advance(State.SUPERSEDED);
            return;
        }
        if (error != Errors.NONE) {
            throw error.exception("heartbeat of broker " + brokerId());
        }
        if (answer.isFenced()) {
            advance(State.FENCED);
        } else {
            leaseStart = sentAt;
            advance(State.ACTIVE);
        }
    }

    /**
     * Controlled shutdown: stops heartbeating, and asks the quorum to fence this broker now (moving its leaderships
     * away) rather than after its session runs out; waits up to {@code timeout} for the answer.
     */
    public void shutDown(Duration timeout) throws InterruptedException {
        State before = state.getAndSet(State.SHUT_DOWN);
        timer.shutdownNow();
        // A heartbeat being sent now must go before the shutdown request, or it could unfence the broker after it.
        if (!timer.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            LOG.warn("broker {}: its lifecycle thread did not stop within {} ms", brokerId(), timeout.toMillis());
        }
        if (before != State.FENCED && before != State.ACTIVE) {
            return;
        }
        BrokerHeartbeatRequestData request = new BrokerHeartbeatRequestData()
                .setBrokerId(brokerId())
                .setBrokerEpoch(brokerEpoch)
                .setCurrentMetadataOffset(metadataOffset.getAsLong())
                .setWantShutDown(true);
        try {
            controller.heartbeat(request).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn(
                    "broker {}: controlled shutdown not acknowledged ({}); the quorum fences it after its session",
                    brokerId(),
                    e.toString());
        }
    }

    @Override
    public void close() throws InterruptedException {
        shutDown(Duration.ofMillis(leaseNanos / 1_000_000));
    }
}
