package io.isthmus.broker.rdma;

import io.isthmus.broker.partition.Partition;
import io.isthmus.broker.partition.Partition.ProduceOutcome;
import io.isthmus.broker.partition.SharedAppender;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A partition under shared produce: installed as the partition's writer, so its TCP produce is handed to the RDMA
 * datapath and reserves through the same word as the RDMA producers. Holds the live {@link SharedSegment} (created on
 * demand) and the work that waits while access is revoked. State confined to the datapath thread; {@link #append}
 * only hands over.
 */
final class SharedProduce implements SharedAppender {
    final Partition partition;
    private final SharedProducePath path;
    SharedSegment current;
    /** Access requests and TCP appends waiting for a revocation's grace period to end. */
    final List<Runnable> deferred = new ArrayList<>();
    /** Segments revoked and not yet retired. */
    final List<SharedSegment> revoked = new ArrayList<>(1);
    /** Grants on any of this partition's shared segments. */
    int grants;

    boolean ended;
    /** The leader epoch shared produce began in: its writes commit only within it (a single broker's never changes). */
    final int leaderEpoch;

    SharedProduce(final Partition partition, final SharedProducePath path) {
        this.partition = partition;
        this.path = path;
        this.leaderEpoch = partition.leaderEpoch();
    }

    @Override
    public CompletableFuture<ProduceOutcome> append(final Partition partition, final MemorySegment batches) {
        final LocalAppend append = new LocalAppend(partition, batches);
        path.submitLocal(this, append);
        return append.future;
    }

    /** Whether access requests and appends must wait for a revoked segment to be retired. */
    boolean inGrace() {
        return !revoked.isEmpty();
    }

    @Override
    public String toString() {
        return "SharedProduce{" + partition.topicPartition() + ", current=" + current + ", grants=" + grants + '}';
    }
}
