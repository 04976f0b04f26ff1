package io.isthmus.client.producer;

import io.isthmus.client.network.OneSidedProducerTransport;
import io.isthmus.protocol.record.RecordBatchBuilder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.kafka.common.Uuid;

/**
 * The batches of one partition: the open batch records are appended to, the sealed batches waiting for the sender,
 * and the next idempotent sequence. Application threads and the sender share it under {@link #lock}; {@link #inFlight}
 * and {@link #retries} belong to the sender thread alone. A sequence reset ({@link RecordAccumulator#resetSequences})
 * happens under the lock while the producer has no batch at all.
 */
final class PartitionQueue {
    final String topic;
    final int partition;
    final ReentrantLock lock = new ReentrantLock();
    final RecordBatchBuilder builder = new RecordBatchBuilder();

    // Guarded by lock.
    ProducerBatch open;
    int nextSequence;

    /**
     * Sealed batches in sequence order; guarded by its own monitor, so the sender can take them while an application
     * thread holds {@link #lock} waiting for a buffer.
     */
    final ArrayDeque<ProducerBatch> sealed = new ArrayDeque<>();

    // Guarded by its own monitor.
    private final ArrayDeque<ProducerBatch> spare = new ArrayDeque<>();

    // Metadata, written by whoever refreshes it.
    volatile int leader = -1;
    volatile Uuid topicId = Uuid.ZERO_UUID;

    // Sender thread only.
    int inFlight;
    /**
     * Whether the broker has acknowledged a batch of this partition from this producer. Until it has, it
     * does not know the producer and accepts any first sequence, so a later batch could land before an
     * earlier one that failed, and the earlier one could then never be delivered in order. Until then the
     * sender keeps one batch of this partition in flight; afterwards the broker's sequence check keeps
     * pipelined batches in order.
     */
    volatile boolean sequenceKnownToBroker;

    /**
     * Transactional producers: the number of the transaction this partition was last sent to (application thread,
     * under the transaction manager's lock), and of the one the coordinator last added it to (AddPartitionsToTxn).
     * A batch goes out only once both are the current transaction's.
     */
    volatile long transactionSentTo = -1;

    volatile long transactionAddedTo = -1;

    final ArrayList<ProducerBatch> retries = new ArrayList<>();

    /** Produce access over RDMA or shared memory (sender thread, transports rdma and shm only). */
    OneSidedProducerTransport.Stream stream;

    PartitionQueue(final String topic, final int partition) {
        this.topic = topic;
        this.partition = partition;
    }

    /**
     * A recycled batch object, or a new one. The spare list has a monitor of its own: the sender recycles while an
     * application thread may hold {@link #lock} waiting for a buffer only the sender can free.
     */
    ProducerBatch takeBatch() {
        final ProducerBatch batch;
        synchronized (spare) {
            batch = spare.pollFirst();
        }
        return batch != null ? batch : new ProducerBatch(this);
    }

    /** Takes a completed batch back for reuse. */
    void recycle(final ProducerBatch batch) {
        batch.buffer = null;
        synchronized (spare) {
            spare.addFirst(batch);
        }
    }

    /** Puts a batch to retry in sequence order (sender thread). */
    void addRetry(final ProducerBatch batch) {
        int i = retries.size();
        while (i > 0 && retries.get(i - 1).baseSequence > batch.baseSequence) {
            i--;
        }
        retries.add(i, batch);
    }

    @Override
    public String toString() {
        return topic + "-" + partition;
    }
}
