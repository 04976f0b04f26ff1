package io.isthmus.broker.log;

import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;

/** A clock the tests move by hand. */
final class MutableClock implements InstantSource {
    private final AtomicLong millis;

    MutableClock(final long startMillis) {
        this.millis = new AtomicLong(startMillis);
    }

    void advance(final long deltaMillis) {
        millis.addAndGet(deltaMillis);
    }

    @Override
    public long millis() {
        return millis.get();
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis.get());
    }
}
