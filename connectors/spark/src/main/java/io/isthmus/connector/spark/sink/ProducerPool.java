package io.isthmus.connector.spark.sink;

import io.isthmus.client.producer.IsthmusProducer;
import io.isthmus.connector.spark.ExecutorSettings;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The executor's producers, one per producer settings, shared by the tasks that write with those settings, as Spark's
 * Kafka sink shares its cached producer: the producer is thread-safe and batches the tasks' records together. A
 * producer no task has used for {@code spark.isthmus.producer.cache.timeout} (10m, Spark's Kafka default) is closed.
 */
final class ProducerPool {
    private static final Logger LOG = LoggerFactory.getLogger(ProducerPool.class);

    static final String TIMEOUT = "spark.isthmus.producer.cache.timeout";

    private static final ProducerPool EXECUTOR = new ProducerPool();

    private static final class Entry {
        final Map<String, String> settings;
        final IsthmusProducer producer;
        int users;
        long idleSinceNanos;
        boolean retired;

        Entry(final Map<String, String> settings, final IsthmusProducer producer) {
            this.settings = settings;
            this.producer = producer;
        }
    }

    /** The producer new tasks get, per settings. */
    private final Map<Map<String, String>, Entry> current = new HashMap<>();
    /** Every open producer, retired ones included, by identity. */
    private final Map<IsthmusProducer, Entry> open = new IdentityHashMap<>();

    static ProducerPool executor() {
        return EXECUTOR;
    }

    /** The producer for {@code settings}, made on first use; give it back with {@link #release}. */
    IsthmusProducer acquire(final Map<String, String> settings) {
        final List<IsthmusProducer> expired;
        Entry entry;
        synchronized (this) {
            expired = evictIdle(System.nanoTime());
            entry = current.get(settings);
            if (entry == null) {
                entry = new Entry(settings, new IsthmusProducer(settings));
                current.put(settings, entry);
                open.put(entry.producer, entry);
            }
            entry.users++;
        }
        expired.forEach(ProducerPool::closeQuietly);
        return entry.producer;
    }

    /**
     * A task is done with the producer. A producer that failed ({@code broken}) is retired: new tasks get a new one,
     * and it is closed when its last task releases it.
     */
    void release(final IsthmusProducer producer, final boolean broken) {
        IsthmusProducer closing = null;
        synchronized (this) {
            final Entry entry = open.get(producer);
            if (entry == null) {
                throw new IllegalStateException("released a producer the pool does not hold: " + producer);
            }
            entry.users--;
            if (broken && !entry.retired) {
                entry.retired = true;
                current.remove(entry.settings, entry);
            }
            if (entry.users == 0) {
                entry.idleSinceNanos = System.nanoTime();
                if (entry.retired) {
                    open.remove(producer);
                    closing = producer;
                }
            }
        }
        if (closing != null) {
            closeQuietly(closing);
        }
    }

    private List<IsthmusProducer> evictIdle(final long now) {
        final long timeoutNanos = ExecutorSettings.durationMs(TIMEOUT, "10m") * 1_000_000L;
        final List<IsthmusProducer> expired = new ArrayList<>();
        final Iterator<Entry> entries = current.values().iterator();
        while (entries.hasNext()) {
            final Entry entry = entries.next();
            if (entry.users == 0 && now - entry.idleSinceNanos > timeoutNanos) {
                expired.add(entry.producer);
                open.remove(entry.producer);
                entries.remove();
            }
        }
        return expired;
    }

    private static void closeQuietly(final IsthmusProducer producer) {
        try {
            producer.close();
        } catch (final RuntimeException e) {
            LOG.warn("closing a cached isthmus producer failed", e);
        }
    }
}
