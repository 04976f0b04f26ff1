package io.isthmus.broker.network;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Lets a repeated log line through at most once per interval and counts what it held back, so a client that sends
 * bad input or floods the broker with connections cannot flood its log as well.
 */
final class LogThrottle {
    private final long intervalNanos;
    private final AtomicLong lastNanos;
    private final AtomicLong suppressed = new AtomicLong();

    LogThrottle(final long intervalNanos) {
        this.intervalNanos = intervalNanos;
        this.lastNanos = new AtomicLong(System.nanoTime() - intervalNanos);
    }

    /**
     * Whether to log now; when it is, returns through {@link #takeSuppressed} how many were held back since the last
     * line that went through.
     */
    boolean tryAcquire() {
        final long now = System.nanoTime();
        final long last = lastNanos.get();
        if (now - last >= intervalNanos && lastNanos.compareAndSet(last, now)) {
            return true;
        }
        suppressed.incrementAndGet();
        return false;
    }

    /** The lines held back since the last call; resets the count. */
    long takeSuppressed() {
        return suppressed.getAndSet(0);
    }

    long intervalSeconds() {
        return intervalNanos / 1_000_000_000L;
    }
}
