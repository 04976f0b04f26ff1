package io.isthmus.client.producer;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One record batch on its way to the broker: the off-heap buffer it is built in, where it goes, its sequence, and
 * the per-record completions to run when it is acknowledged. Recycled with its buffer; allocation happens only when a
 * batch holds more callbacks than ever before.
 */
final class ProducerBatch {
    private static final Logger LOG = LoggerFactory.getLogger(ProducerBatch.class);

    final PartitionQueue queue;
    MemorySegment buffer;
    /** Whether {@link #buffer} belongs to the pool (false: a one-off buffer for an oversized record). */
    boolean pooled;

    int sizeInBytes;
    int recordCount;
    int baseSequence = -1;
    long createdNanos;
    long deadlineNanos;
    int attempts;
    long retryAtNanos;
    private Object[] completions = new Object[16];
    private int[] indexes = new int[16];
    private long[] timestamps = new long[16];
    private int completionCount;

    ProducerBatch(final PartitionQueue queue) {
        this.queue = queue;
    }

    /**
     * The number of the transaction the batch belongs to ({@link TransactionManager}), -1 outside transactions: an
     * abort fails the unsent batches of its own transaction only, never those of the next one begun meanwhile.
     */
    long transaction = -1;

    void reset(final MemorySegment buffer, final boolean pooled, final long nowNanos, final long deliveryTimeoutNanos) {
        this.buffer = buffer;
        this.pooled = pooled;
        this.sizeInBytes = 0;
        this.recordCount = 0;
        this.baseSequence = -1;
        this.createdNanos = nowNanos;
        this.deadlineNanos = nowNanos + deliveryTimeoutNanos;
        this.attempts = 0;
        this.retryAtNanos = 0;
        this.completionCount = 0;
    }

    /** Remembers what to complete for the record with offset delta {@code index} (callback, future or nothing). */
    void addCompletion(final int index, final Object completion, final long timestamp) {
        if (completion == null) {
            return;
        }
        if (completionCount == completions.length) {
            completions = Arrays.copyOf(completions, completionCount * 2);
            indexes = Arrays.copyOf(indexes, completionCount * 2);
            timestamps = Arrays.copyOf(timestamps, completionCount * 2);
        }
        completions[completionCount] = completion;
        indexes[completionCount] = index;
        timestamps[completionCount] = timestamp;
        completionCount++;
    }

    boolean hasCompletions() {
        return completionCount > 0;
    }

    /** The built batch bytes as a buffer view (for the Produce request). */
    ByteBuffer bytes() {
        return buffer.asSlice(0, sizeInBytes).asByteBuffer();
    }

    @SuppressWarnings("unchecked")
    void complete(final long baseOffset, final RuntimeException error) {
        final String topic = queue.topic;
        final int partition = queue.partition;
        for (int i = 0; i < completionCount; i++) {
            final Object completion = completions[i];
            completions[i] = null;
            final RecordMetadata metadata = error == null
                    ? new RecordMetadata(topic, partition, baseOffset < 0 ? -1 : baseOffset + indexes[i], timestamps[i])
                    : null;
            try {
                if (completion instanceof Callback callback) {
                    callback.onCompletion(metadata, error);
                } else if (completion instanceof CompletableFuture<?> future) {
                    if (error == null) {
                        ((CompletableFuture<RecordMetadata>) future).complete(metadata);
                    } else {
                        future.completeExceptionally(error);
                    }
                }
            } catch (final RuntimeException callbackFailure) {
                // A throwing callback must not stop the other records' completions or the sender.
                LOG.warn("producer callback threw: topic={}, partition={}", topic, partition, callbackFailure);
            }
        }
        completionCount = 0;
    }

    @Override
    public String toString() {
        return "ProducerBatch{topic=" + queue.topic + ", partition=" + queue.partition + ", records=" + recordCount
                + ", bytes=" + sizeInBytes + ", baseSequence=" + baseSequence + ", attempts=" + attempts + '}';
    }
}
