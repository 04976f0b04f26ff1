package io.isthmus.client.consumer.internals;

import io.isthmus.protocol.record.BatchDecompressor;
import io.isthmus.protocol.record.CompressionType;
import io.isthmus.protocol.record.EndTransactionMarker;
import io.isthmus.protocol.record.Record;
import io.isthmus.protocol.record.RecordBatch;
import io.isthmus.protocol.record.RecordCursor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.function.Supplier;
import org.apache.kafka.common.errors.CorruptRecordException;

/**
 * Decides which batches of one fetched slice belong to aborted transactions, exactly as kafka-clients' {@code
 * CompletedFetch} does for {@code read_committed}: walking the batches in offset order, a transaction becomes aborted
 * once the walk reaches its first offset (every aborted transaction with a first offset at or below the batch's last
 * offset joins the set of aborted producers), a transactional batch of an aborted producer is skipped, and that
 * producer's ABORT marker (a control batch whose record key says ABORT) takes it out of the set again, so its later
 * transactions are read.
 *
 * <p>One per record iterator, reset per slice; the set of aborted producers is a small reused array (a partition
 * rarely has more than a few aborted producers open at once), so the walk allocates nothing.
 */
final class AbortedBatchFilter {
    /** A marker's key: int16 version, int16 type ({@link EndTransactionMarker#ABORT} or COMMIT). */
    private static final int CONTROL_KEY_BYTES = 4;

    private static final ValueLayout.OfShort INT16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final RecordCursor controlCursor = new RecordCursor();
    /** A decompressor for a compressed control batch (Kafka writes them uncompressed; a broker may not). */
    private final Supplier<BatchDecompressor> decompressors;

    private AbortedTransactions aborted;
    private int nextAborted;
    private long[] abortedProducers = new long[4];
    private int abortedProducerCount;

    AbortedBatchFilter(final Supplier<BatchDecompressor> decompressors) {
        this.decompressors = decompressors;
    }

    /** Starts on a slice with these aborted transactions (null or empty: nothing is aborted). */
    void reset(final AbortedTransactions aborted) {
        this.aborted = aborted == null || aborted.isEmpty() ? null : aborted;
        this.nextAborted = 0;
        this.abortedProducerCount = 0;
    }

    /**
     * Whether {@code batch}, the next batch of the slice in offset order, belongs to an aborted transaction. Control
     * batches are never reported (the caller skips them anyway) but are read: an ABORT marker ends its producer's
     * aborted transaction.
     */
    boolean isAborted(final RecordBatch batch, final SubscriptionState.PartitionState partition) {
        if (aborted == null || batch.producerId() < 0) {
            return false;
        }
        while (nextAborted < aborted.count() && aborted.firstOffset(nextAborted) <= batch.lastOffset()) {
            addAbortedProducer(aborted.producerId(nextAborted++));
        }
        final long producerId = batch.producerId();
        if (batch.isControl()) {
            if (isAbortMarker(batch, partition)) {
                removeAbortedProducer(producerId);
            }
            return false;
        }
        return batch.isTransactional() && containsAbortedProducer(producerId);
    }

    /**
     * Whether a control batch is an ABORT marker, from its first record's key. Read with a reused cursor (not {@link
     * EndTransactionMarker#controlType}, which takes a new varint reader per call and calls a compressed or short key
     * unknown); a key too short for a marker is corrupt, as kafka-clients' {@code ControlRecordType.parse} has it.
     */
    private boolean isAbortMarker(final RecordBatch batch, final SubscriptionState.PartitionState partition) {
        controlCursor.reset(batch, batch.compressionId() == CompressionType.NONE.id() ? null : decompressors.get());
        if (!controlCursor.next()) {
            return false;
        }
        final Record record = controlCursor.record();
        if (record.keySize() < CONTROL_KEY_BYTES) {
            throw new CorruptRecordException("control record key of " + record.keySize() + " bytes, a marker has "
                    + CONTROL_KEY_BYTES + ": partition=" + partition.topicPartition() + ", offset=" + record.offset());
        }
        final MemorySegment segment = record.segment();
        return segment.get(INT16, record.keyOffset() + 2) == EndTransactionMarker.ABORT;
    }

    private void addAbortedProducer(final long producerId) {
        if (containsAbortedProducer(producerId)) {
            return;
        }
        if (abortedProducerCount == abortedProducers.length) {
            abortedProducers = Arrays.copyOf(abortedProducers, abortedProducerCount * 2);
        }
        abortedProducers[abortedProducerCount++] = producerId;
    }

    private void removeAbortedProducer(final long producerId) {
        for (int i = 0; i < abortedProducerCount; i++) {
            if (abortedProducers[i] == producerId) {
                abortedProducers[i] = abortedProducers[--abortedProducerCount];
                return;
            }
        }
    }

    private boolean containsAbortedProducer(final long producerId) {
        for (int i = 0; i < abortedProducerCount; i++) {
            if (abortedProducers[i] == producerId) {
                return true;
            }
        }
        return false;
    }
}
