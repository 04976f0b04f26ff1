package io.isthmus.broker.rdma;

import java.util.concurrent.locks.LockSupport;

/**
 * Spin, then yield, then park with an exponentially growing period up to a cap: busy-polling latency while there is
 * work, little CPU once there is none. Not thread-safe; one per polling thread.
 */
public final class BackoffIdleStrategy implements IdleStrategy {
    private final int maxSpins;
    private final int maxYields;
    private final long minParkNanos;
    private final long maxParkNanos;
    private int spins;
    private int yields;
    private long parkNanos;

    public BackoffIdleStrategy(
            final int maxSpins, final int maxYields, final long minParkNanos, final long maxParkNanos) {
        if (maxSpins < 0 || maxYields < 0 || minParkNanos < 1 || maxParkNanos < minParkNanos) {
            throw new IllegalArgumentException("bad backoff: maxSpins=" + maxSpins + " maxYields=" + maxYields
                    + " minParkNanos=" + minParkNanos + " maxParkNanos=" + maxParkNanos);
        }
        this.maxSpins = maxSpins;
        this.maxYields = maxYields;
        this.minParkNanos = minParkNanos;
        this.maxParkNanos = maxParkNanos;
        this.parkNanos = minParkNanos;
    }

    @Override
    public void idle(final int workCount) {
        if (workCount > 0) {
            reset();
            return;
        }
        if (spins < maxSpins) {
            spins++;
            Thread.onSpinWait();
        } else if (yields < maxYields) {
            yields++;
            Thread.yield();
        } else {
            LockSupport.parkNanos(parkNanos);
            parkNanos = Math.min(parkNanos << 1, maxParkNanos);
        }
    }

    @Override
    public void reset() {
        spins = 0;
        yields = 0;
        parkNanos = minParkNanos;
    }

    /** The period the next park would last (0 while still spinning or yielding); for tests and metrics. */
    public long nextParkNanos() {
        return spins < maxSpins || yields < maxYields ? 0 : parkNanos;
    }
}
