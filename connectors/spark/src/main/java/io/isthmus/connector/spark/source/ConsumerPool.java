package io.isthmus.connector.spark.source;

import io.isthmus.client.consumer.ConsumerConfig;
import io.isthmus.client.consumer.IsthmusConsumer;
import io.isthmus.connector.spark.ExecutorSettings;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The executor's idle consumers, one set per consumer settings and partition, as Spark's Kafka source keeps them: the
 * next micro-batch's task on a partition takes the consumer the last one left, already connected and, where it ended
 * where the new range starts, with its next fetch under way. A consumer is used by one task at a time; one a task failed
 * with is closed rather than kept. At most {@code spark.isthmus.consumer.cache.capacity} (64) idle consumers are kept,
 * each for at most {@code spark.isthmus.consumer.cache.timeout} (5m), the names and defaults of Spark's Kafka cache.
 */
final class ConsumerPool {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumerPool.class);

    static final String CAPACITY = "spark.isthmus.consumer.cache.capacity";
    static final String TIMEOUT = "spark.isthmus.consumer.cache.timeout";

    private static final ConsumerPool EXECUTOR = new ConsumerPool();

    /** Which consumers are interchangeable: same settings, same partition. */
    record Key(Map<String, String> settings, TopicPartition partition) {}

    private record Idle(IsthmusConsumer consumer, long sinceNanos) {}

    /** Idle consumers per key, keys in least recently returned order. */
    private final LinkedHashMap<Key, ArrayDeque<Idle>> idle = new LinkedHashMap<>(16, 0.75f, true);

    private int idleCount;

    static ConsumerPool executor() {
        return EXECUTOR;
    }

    /**
     * A consumer assigned {@code key}'s partition alone, positioned at {@code offset}: an idle one (seeking only where
     * it stands elsewhere, so that a fetch already under way for {@code offset} is kept), or a new one.
     */
    IsthmusConsumer borrow(final Key key, final long offset) {
        final List<IsthmusConsumer> expired;
        IsthmusConsumer found = null;
        synchronized (this) {
            expired = evictExpired(System.nanoTime());
            final ArrayDeque<Idle> consumers = idle.get(key);
            if (consumers != null && !consumers.isEmpty()) {
                found = consumers.pollFirst().consumer();
                idleCount--;
            }
        }
        expired.forEach(ConsumerPool::closeQuietly);
        if (found != null) {
            if (found.position(key.partition()) != offset) {
                found.seek(key.partition(), offset);
            }
            return found;
        }
        final Map<String, Object> settings = new HashMap<>(key.settings());
        // Where a range starts is the planner's; an offset that is gone must be reported, never silently replaced.
        settings.put(ConsumerConfig.AUTO_OFFSET_RESET, "none");
        settings.put(ConsumerConfig.ENABLE_AUTO_COMMIT, "false");
        final IsthmusConsumer consumer = new IsthmusConsumer(settings);
        consumer.assign(List.of(key.partition()));
        consumer.seek(key.partition(), offset);
        return consumer;
    }

    /** Takes a consumer back after a task: kept when {@code healthy}, closed otherwise or when the pool is full. */
    void giveBack(final Key key, final IsthmusConsumer consumer, final boolean healthy) {
        if (!healthy) {
            closeQuietly(consumer);
            return;
        }
        final List<IsthmusConsumer> closing;
        synchronized (this) {
            closing = evictExpired(System.nanoTime());
            idle.computeIfAbsent(key, k -> new ArrayDeque<>()).addFirst(new Idle(consumer, System.nanoTime()));
            idleCount++;
            final int capacity = ExecutorSettings.integer(CAPACITY, 64);
            final Iterator<Map.Entry<Key, ArrayDeque<Idle>>> eldest =
                    idle.entrySet().iterator();
            while (idleCount > capacity && eldest.hasNext()) {
                final ArrayDeque<Idle> consumers = eldest.next().getValue();
                while (idleCount > capacity && !consumers.isEmpty()) {
                    closing.add(consumers.pollLast().consumer());
                    idleCount--;
                }
                if (consumers.isEmpty()) {
                    eldest.remove();
                }
            }
        }
        closing.forEach(ConsumerPool::closeQuietly);
    }

    private List<IsthmusConsumer> evictExpired(final long now) {
        final long timeoutNanos = ExecutorSettings.durationMs(TIMEOUT, "5m") * 1_000_000L;
        final List<IsthmusConsumer> expired = new java.util.ArrayList<>();
        final Iterator<ArrayDeque<Idle>> all = idle.values().iterator();
        while (all.hasNext()) {
            final ArrayDeque<Idle> consumers = all.next();
            while (!consumers.isEmpty() && now - consumers.peekLast().sinceNanos() > timeoutNanos) {
                expired.add(consumers.pollLast().consumer());
                idleCount--;
            }
            if (consumers.isEmpty()) {
                all.remove();
            }
        }
        return expired;
    }

    /** Idle consumers now, for tests and metrics. */
    synchronized int idleCount() {
        return idleCount;
    }

    private static void closeQuietly(final IsthmusConsumer consumer) {
        try {
            consumer.close();
        } catch (final RuntimeException e) {
            LOG.warn("closing a cached isthmus consumer failed", e);
        }
    }
}
