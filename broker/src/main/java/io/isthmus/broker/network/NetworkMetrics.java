package io.isthmus.broker.network;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Request, byte and connection counters of the network layer, updated lock-free on the event loops and read
 * by JMX.
 */
public final class NetworkMetrics {
    private static final int API_KEY_SLOTS = maxApiKey() + 1;

    private final LongAdder[] requests = adders();
    private final LongAdder[] requestNanos = adders();
    private final LongAdder[] errors = adders();
    private final LongAdder bytesIn = new LongAdder();
    private final LongAdder bytesOut = new LongAdder();
    private final AtomicLong connections = new AtomicLong();
    private final LongAdder connectionsClosedForBadInput = new LongAdder();
    private final LongAdder connectionsRefused = new LongAdder();
    private final LongAdder unexpectedFailures = new LongAdder();
    private final LongAdder authenticationFailures = new LongAdder();
    private final LongAdder connectionsClosedIdle = new LongAdder();

    void recordRequest(final ApiKeys apiKey, final long latencyNanos, final boolean error) {
        requests[apiKey.id].increment();
        requestNanos[apiKey.id].add(latencyNanos);
        if (error) {
            errors[apiKey.id].increment();
        }
    }

    void recordBytesIn(final long bytes) {
        bytesIn.add(bytes);
    }

    void recordBytesOut(final long bytes) {
        bytesOut.add(bytes);
    }

    void connectionOpened() {
        connections.incrementAndGet();
    }

    void connectionClosed() {
        connections.decrementAndGet();
    }

    void connectionClosedForBadInput() {
        connectionsClosedForBadInput.increment();
    }

    void authenticationFailed() {
        authenticationFailures.increment();
    }

    /** SASL exchanges that failed (bad credentials, an unknown mechanism); each closed its connection. */
    public long authenticationFailures() {
        return authenticationFailures.sum();
    }

    void unexpectedFailure() {
        unexpectedFailures.increment();
    }

    void connectionRefused() {
        connectionsRefused.increment();
    }

    void connectionClosedIdle() {
        connectionsClosedIdle.increment();
    }

    /** Requests of this API handled since start. */
    public long requests(final ApiKeys apiKey) {
        return requests[apiKey.id].sum();
    }

    /** Total time from a complete request frame to its response being handed to the socket, in nanoseconds. */
    public long requestNanos(final ApiKeys apiKey) {
        return requestNanos[apiKey.id].sum();
    }

    /** Requests of this API answered with an error at the top level, or closing the connection. */
    public long errors(final ApiKeys apiKey) {
        return errors[apiKey.id].sum();
    }

    public long bytesIn() {
        return bytesIn.sum();
    }

    public long bytesOut() {
        return bytesOut.sum();
    }

    public long connections() {
        return connections.get();
    }

    /**
     * Requests answered UNKNOWN_SERVER_ERROR because a handler failed in a way it did not expect: each one is a bug
     * (bad input is answered with its own error code), logged with its stack trace.
     */
    public long unexpectedFailures() {
        return unexpectedFailures.sum();
    }

    /** Connections closed on arrival because {@code max.connections} or {@code max.connections.per.ip} was reached. */
    public long connectionsRefused() {
        return connectionsRefused.sum();
    }

    /** Connections closed after {@code connections.max.idle.ms} without traffic. */
    public long connectionsClosedIdle() {
        return connectionsClosedIdle.sum();
    }

    public long connectionsClosedForBadInput() {
        return connectionsClosedForBadInput.sum();
    }

    private static LongAdder[] adders() {
        final LongAdder[] adders = new LongAdder[API_KEY_SLOTS];
        for (int i = 0; i < adders.length; i++) {
            adders[i] = new LongAdder();
        }
        return adders;
    }

    private static int maxApiKey() {
        int max = 0;
        for (final ApiKeys key : ApiKeys.values()) {
            max = Math.max(max, key.id);
        }
        return max;
    }
}
