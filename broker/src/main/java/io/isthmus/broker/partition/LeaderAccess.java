package io.isthmus.broker.partition;

import io.isthmus.broker.partition.Partition.ProduceOutcome;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.common.protocol.Errors;

/**
 * The rules a one-sided datapath (shared memory, RDMA) serves a partition by, the same a Produce and a Fetch follow: it
 * grants direct access to the partition's log only while this broker leads the partition, each grant holds only within
 * the leader epoch it was made in (a later epoch, or the broker's lease with the quorum running out, ends it), and a
 * batch produced through a grant with {@code acks=all} is answered once {@code min.insync.replicas} hold it. Readers
 * are bounded by the high watermark on their side ({@link Partition#readablePosition}).
 *
 * @param leadership whether this broker leads a partition now, and in which epoch
 * @param minInsyncReplicas the replicas that must hold an {@code acks=all} batch before it is answered ({@code
 *     min.insync.replicas})
 */
public record LeaderAccess(PartitionLeadership leadership, int minInsyncReplicas) {
    /** A single broker: it leads every partition it has, and an append is as replicated as it will be. */
    public static final LeaderAccess SOLE_BROKER = new LeaderAccess(PartitionLeadership.SOLE_BROKER, 1);

    /** Whether this is a single broker's access (no followers, no quorum), not a node of a cluster's. */
    public boolean soleBroker() {
        return leadership == PartitionLeadership.SOLE_BROKER;
    }

    /**
     * The leader epoch to grant {@code partition} in, or -1 if this broker does not lead it now (a follower, a leader
     * that has not taken the metadata's epoch yet, a broker whose lease ran out).
     */
    public int grantEpoch(final Partition partition) {
        final int epoch = partition.leaderEpoch();
        return leadership.check(partition, epoch) == Errors.NONE ? epoch : -1;
    }

    /** Whether a grant made in {@code epoch} still holds: this broker leads the partition, still in that epoch. */
    public boolean holds(final Partition partition, final int epoch) {
        return leadership.check(partition, epoch) == Errors.NONE;
    }

    /**
     * Appends through {@code append} and answers once replicated, as a Produce with {@code acks=all}: NOT_ENOUGH_REPLICAS
     * at once, with nothing appended, while fewer than {@code min.insync.replicas} are in sync; otherwise the append's
     * outcome once the in-sync replicas hold it ({@link Partition#awaitReplicated}), or REQUEST_TIMED_OUT after {@code
     * timeoutMs}.
     */
    public CompletableFuture<ProduceOutcome> appendReplicated(
            final Partition partition, final long timeoutMs, final Supplier<CompletableFuture<ProduceOutcome>> append) {
        if (soleBroker()) {
            return append.get();
        }
        final Optional<String> tooFew = tooFewInSync(partition);
        if (tooFew.isPresent()) {
            return CompletableFuture.completedFuture(new ProduceOutcome(Errors.NOT_ENOUGH_REPLICAS, -1, tooFew.get()));
        }
        return append.get().thenCompose(appended -> awaitReplicated(partition, appended, timeoutMs));
    }

    /** Why an {@code acks=all} batch may not be appended to {@code partition} now: fewer in sync than required. */
    public Optional<String> tooFewInSync(final Partition partition) {
        return partition.tooFewInSync(minInsyncReplicas, "min.insync.replicas");
    }

    /**
     * {@code appended} once {@code min.insync.replicas} hold it, or the error that ended the wait ({@link
     * Partition#awaitReplicated}).
     */
    public CompletableFuture<ProduceOutcome> awaitReplicated(
            final Partition partition, final ProduceOutcome appended, final long timeoutMs) {
        return partition.awaitReplicated(appended, minInsyncReplicas, timeoutMs);
    }
}
