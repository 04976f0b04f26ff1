package io.isthmus.client.consumer.internals;

import io.isthmus.client.network.KafkaConnection;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.errors.WakeupException;

/**
 * {@code wakeup()} from any thread: a pending flag the polling thread turns into a {@link WakeupException} at the next
 * round, and a nudge to the connection it may be blocked receiving on right now.
 */
public final class WakeupTrigger {
    private final AtomicBoolean pending = new AtomicBoolean();
    private volatile KafkaConnection blockedOn;

    /** Any thread: makes a blocked or the next poll throw {@link WakeupException}. */
    public void wakeup() {
        pending.set(true);
        final KafkaConnection connection = blockedOn;
        if (connection != null) {
            connection.wakeup();
        }
    }

    /** Polling thread: throws {@link WakeupException} once per {@link #wakeup()}. */
    public void maybeTriggerWakeup() {
        if (pending.compareAndSet(true, false)) {
            throw new WakeupException();
        }
    }

    /**
     * Polling thread, before blocking on {@code connection}: afterwards a wakeup reaches it. Check {@link #isPending()}
     * after this call, not before, so a wakeup between the two is not lost.
     */
    public void blockingOn(final KafkaConnection connection) {
        blockedOn = connection;
    }

    /** Polling thread, after the blocking call returned. */
    public void unblocked() {
        blockedOn = null;
    }

    public boolean isPending() {
        return pending.get();
    }
}
