package io.isthmus.broker.rdma;

import io.isthmus.broker.partition.Partition;
import io.isthmus.broker.partition.Partition.ProduceOutcome;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.Errors;

/**
 * One TCP produce of a partition under shared produce, on its way through the shared order: the request's batches
 * (a view of the request frame, valid until {@link #future} completes), the next one to reserve and how many are
 * reserved and not yet committed. Answered once every batch is committed or the first one failed. Datapath thread.
 */
final class LocalAppend {
    final Partition partition;
    final MemorySegment batches;
    final CompletableFuture<ProduceOutcome> future = new CompletableFuture<>();
    /** Where the next batch to reserve starts in {@link #batches}. */
    long position;
    /** Where the oldest batch not committed yet starts in {@link #batches}. */
    long committedUpTo;

    int outstanding;
    long firstOffset = -1;
    private ProduceOutcome failure;

    LocalAppend(final Partition partition, final MemorySegment batches) {
        this.partition = partition;
        this.batches = batches;
    }

    boolean failed() {
        return failure != null;
    }

    boolean reservedAll() {
        return failed() || position >= batches.byteSize();
    }

    /** The batch at {@code committedUpTo}, {@code length} bytes, committed at {@code baseOffset}. */
    void committed(final long length, final long baseOffset) {
        if (firstOffset < 0) {
            firstOffset = baseOffset;
        }
        committedUpTo += length;
        outstanding--;
        maybeComplete();
    }

    /** A batch before which nothing was reserved was a duplicate, answered with its original offset. */
    void skippedDuplicate(final long length, final long baseOffset) {
        if (firstOffset < 0) {
            firstOffset = baseOffset;
        }
        position += length;
        committedUpTo = position;
    }

    /** Stops here: nothing from the failed batch on is (or will be) committed. */
    void fail(final Errors error, final String message) {
        if (failure == null) {
            failure = new ProduceOutcome(error, -1, message);
        }
    }

    /** One reserved batch will not commit (its order was given up). */
    void abandoned() {
        outstanding--;
        maybeComplete();
    }

    void maybeComplete() {
        if (outstanding == 0 && reservedAll() && !future.isDone()) {
            future.complete(failure != null ? failure : new ProduceOutcome(Errors.NONE, firstOffset, null));
        }
    }
}
