package io.isthmus.broker.testkit;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waiting, with a deadline, for what another thread of the broker must reach. */
public final class Await {
    private Await() {}

    /**
     * Returns once {@code condition} holds, looking every 10 ms.
     *
     * @throws AssertionError naming {@code what} if it does not hold within {@code within}
     */
    public static void until(final BooleanSupplier condition, final Duration within, final String what)
            throws InterruptedException {
        final long deadline = System.nanoTime() + within.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + within.toSeconds() + " s: " + what);
            }
            Thread.sleep(10);
        }
    }
}
