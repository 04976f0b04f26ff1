package io.isthmus.client.producer;

import static io.isthmus.protocol.record.RecordBatchDescriptor.RECORDS_OFFSET;

import io.isthmus.client.cluster.TopicMetadata;
import io.isthmus.protocol.record.HeaderList;
import io.isthmus.protocol.record.RecordBatchBuilder;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Collects records into per-partition batches built in place in pooled off-heap buffers (one copy of the caller's
 * bytes, nothing allocated per record), seals a batch when the next record does not fit, when it has lingered
 * {@code linger.ms}, or on flush, and hands sealed batches to the {@link Sender}.
 *
 * <p>Sealing writes the idempotent producer id, epoch and the partition's next sequence into the batch, so sequences
 * follow the order batches are sealed in, which is the order they are sent in.
 */
final class RecordAccumulator implements AutoCloseable {
    /** Room for a record's worst-case timestamp delta varint beyond its size at delta 0. */
    private static final int TIMESTAMP_DELTA_SLACK = 10;

    private final ProducerConfig config;
    private final BatchBufferPool pool;
    private final ConcurrentHashMap<String, TopicQueues> topics = new ConcurrentHashMap<>();
    final CopyOnWriteArrayList<PartitionQueue> queues = new CopyOnWriteArrayList<>();
    private final AtomicLong incomplete = new AtomicLong();
    private final Object completionMonitor = new Object();
    private final long deliveryTimeoutNanos;
    private volatile long producerId = -1;
    private volatile short producerEpoch = -1;
    private volatile Runnable wakeSender = () -> {};
    /** Told about every failed batch of a transactional producer; null without {@code transactional.id}. */
    private volatile TransactionManager transactions;

    private final DeliveryListener listener;

    RecordAccumulator(final ProducerConfig config, final DeliveryListener listener) {
        this(config, listener, false);
    }

    /** @param contiguousBuffers batch buffers in one slab (for the RDMA transport to register once) */
    RecordAccumulator(final ProducerConfig config, final DeliveryListener listener, final boolean contiguousBuffers) {
        this.config = config;
        this.listener = listener;
        this.pool = new BatchBufferPool(config.batchSize(), config.bufferMemory(), contiguousBuffers);
        this.deliveryTimeoutNanos = config.deliveryTimeoutMs() * 1_000_000L;
    }

    void producerIdentity(final long producerId, final short producerEpoch) {
        this.producerId = producerId;
        this.producerEpoch = producerEpoch;
    }

    long producerId() {
        return producerId;
    }

    short producerEpoch() {
        return producerEpoch;
    }

    /**
     * Starts every partition's sequence at 0 again: the producer id or epoch changed, and the broker expects sequence 0
     * from the new one. Called while the producer has no batch at all (a transactional producer between transactions,
     * everything completed), so no batch carries the old id or epoch.
     */
    void resetSequences() {
        for (final PartitionQueue queue : queues) {
            queue.lock.lock();
            try {
                queue.nextSequence = 0;
                queue.sequenceKnownToBroker = false;
            } finally {
                queue.lock.unlock();
            }
        }
    }

    void transactions(final TransactionManager transactions) {
        this.transactions = transactions;
    }

    void wakeSender(final Runnable wakeSender) {
        this.wakeSender = wakeSender;
    }

    /** The slab the pooled batch buffers lie in, or null. */
    MemorySegment bufferSlab() {
        return pool.slab();
    }

    /** The partition queues of a topic, or null if the producer has not seen it yet. */
    TopicQueues topic(final String topic) {
        return topics.get(topic);
    }

    /** The topics the producer has queues for. */
    Set<String> topicNames() {
        return topics.keySet();
    }

    /**
     * Creates the queues of a topic from fresh metadata, adds queues for partitions the topic gained since (Kafka's
     * CreatePartitions), and updates leaders. A topic's queues are replaced, never changed in place: a thread that
     * picked a partition from the old ones still finds its queue there.
     */
    TopicQueues register(final TopicMetadata metadata) {
        final TopicQueues queuesOfTopic = topics.compute(metadata.name(), (name, known) -> {
            final int count = metadata.partitionCount();
            if (known != null && known.partitions.length >= count) {
                return known;
            }
            final PartitionQueue[] grown =
                    known == null ? new PartitionQueue[count] : Arrays.copyOf(known.partitions, count);
            for (int p = known == null ? 0 : known.partitions.length; p < count; p++) {
                grown[p] = new PartitionQueue(name, p);
                grown[p].builder.compression(config.compression());
                grown[p].builder.transactional(config.transactional());
                queues.add(grown[p]);
            }
            final int sticky = known == null ? (int) (System.nanoTime() & 0x7fff) : known.sticky();
            return new TopicQueues(grown, sticky);
        });
        for (final PartitionQueue queue : queuesOfTopic.partitions) {
            queue.leader = metadata.leader(queue.partition);
            queue.topicId = metadata.topicId();
        }
        return queuesOfTopic;
    }

    private void advanceSticky(final String topic) {
        final TopicQueues queuesOfTopic = topics.get(topic);
        if (queuesOfTopic != null) {
            queuesOfTopic.advanceSticky();
        }
    }

    /**
     * Makes sure the open batch of {@code queue} has room for a record, sealing a full one and starting a new one.
     * Called with the queue's lock held; returns the builder to append with.
     */
    RecordBatchBuilder reserve(
            final PartitionQueue queue,
            final long timestamp,
            final int keySize,
            final int valueSize,
            final HeaderList headers,
            final boolean stickyRecord) {
        final RecordBatchBuilder builder = queue.builder;
        if (queue.open != null) {
            if (builder.hasRoomFor(timestamp, keySize, valueSize, headers)) {
                return builder;
            }
            seal(queue);
            if (stickyRecord) {
                advanceSticky(queue.topic);
            }
        }
        final long needed = (long) RECORDS_OFFSET
                + RecordBatchBuilder.sizeOfRecord(0, 0, keySize, valueSize, headers)
                + TIMESTAMP_DELTA_SLACK;
        final MemorySegment buffer;
        final boolean pooled;
        if (needed <= pool.bufferSize()) {
            buffer = pool.acquire(config.maxBlockMs());
            pooled = true;
        } else {
            // A record larger than batch.size travels alone in a buffer of its own size, as in Kafka.
            buffer = Arena.ofAuto().allocate(needed, 64);
            pooled = false;
        }
        final ProducerBatch batch = queue.takeBatch();
        batch.reset(buffer, pooled, System.nanoTime(), deliveryTimeoutNanos);
        final TransactionManager txn = transactions;
        batch.transaction = txn == null ? -1 : txn.currentTransaction();
        builder.producer(producerId, producerEpoch, -1);
        builder.begin(buffer, 0, buffer.byteSize(), 0L);
        queue.open = batch;
        incomplete.incrementAndGet();
        // A new batch starts its linger clock now: an idle sender must learn of it (one unpark per batch, not per
        // record), or a lone record would wait out the sender's idle park instead of linger.ms.
        wakeSender.run();
        return builder;
    }

    /** Records one appended record in the open batch. Lock held. */
    void appended(final PartitionQueue queue, final int offsetDelta, final Object completion, final long timestamp) {
        final ProducerBatch batch = queue.open;
        batch.recordCount++;
        batch.addCompletion(offsetDelta, completion, timestamp);
    }

    /** Seals the open batch of {@code queue}: sequence, header and CRC; it is then the sender's. Lock held. */
    void seal(final PartitionQueue queue) {
        final ProducerBatch batch = queue.open;
        if (batch == null) {
            return;
        }
        queue.open = null;
        final RecordBatchBuilder builder = queue.builder;
        final int sequence = config.idempotence() ? queue.nextSequence : -1;
        builder.baseSequence(sequence);
        batch.sizeInBytes = builder.finish();
        batch.baseSequence = sequence;
        if (config.idempotence()) {
            final long next = (long) sequence + batch.recordCount;
            queue.nextSequence = (int) (next > Integer.MAX_VALUE ? next - Integer.MAX_VALUE - 1 : next);
        }
        synchronized (queue.sealed) {
            queue.sealed.addLast(batch);
        }
        wakeSender.run();
    }

    /**
     * Seals open batches that lingered long enough (or all of them when {@code force}); skips a queue an application
     * thread holds right now. Sender thread. Returns the nanos until the next open batch's linger ends (Long.MAX_VALUE
     * if none).
     */
    long sealExpired(final long nowNanos, final boolean force) {
        final long lingerNanos = config.lingerMs() * 1_000_000L;
        long next = Long.MAX_VALUE;
        for (final PartitionQueue queue : queues) {
            if (queue.open == null) {
                continue;
            }
            if (!queue.lock.tryLock()) {
                next = 0;
                continue;
            }
            try {
                final ProducerBatch open = queue.open;
                if (open != null) {
                    final long due = open.createdNanos + lingerNanos - nowNanos;
                    if (force || due <= 0) {
                        seal(queue);
                    } else {
                        next = Math.min(next, due);
                    }
                }
            } finally {
                queue.lock.unlock();
            }
        }
        return next;
    }

    /** Completes a batch: runs its completions, frees its buffer and wakes flushers when nothing is left. */
    void complete(final ProducerBatch batch, final long baseOffset, final RuntimeException error) {
        final TransactionManager txn = transactions;
        if (error != null && txn != null) {
            // Before the completions run: a callback that sees the failure must find the transaction failed too.
            txn.batchFailed(batch, error);
        }
        batch.complete(baseOffset, error);
        if (listener != null) {
            try {
                listener.onDelivery(batch.queue.topic, batch.queue.partition, baseOffset, batch.recordCount, error);
            } catch (final RuntimeException e) {
                org.slf4j.LoggerFactory.getLogger(RecordAccumulator.class)
                        .warn(
                                "delivery listener threw: topic={}, partition={}",
                                batch.queue.topic,
                                batch.queue.partition,
                                e);
            }
        }
        if (batch.pooled) {
            pool.release(batch.buffer);
        }
        batch.queue.recycle(batch);
        if (incomplete.decrementAndGet() == 0) {
            synchronized (completionMonitor) {
                completionMonitor.notifyAll();
            }
        }
    }

    /** Batches appended to and not yet completed (open, sealed, in flight or waiting to retry). */
    long incomplete() {
        return incomplete.get();
    }

    /** Waits until every batch so far is completed (the sender must be sealing them: see {@link Sender#flush}). */
    boolean awaitCompletion(final long timeoutNanos) {
        final long deadline = System.nanoTime() + timeoutNanos;
        synchronized (completionMonitor) {
            while (incomplete.get() > 0) {
                final long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    return false;
                }
                try {
                    completionMonitor.wait(Math.max(1, remaining / 1_000_000L));
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new org.apache.kafka.common.errors.InterruptException(e);
                }
            }
            return true;
        }
    }

    @Override
    public void close() {
        for (final PartitionQueue queue : queues) {
            queue.builder.close();
        }
        pool.close();
    }
}
