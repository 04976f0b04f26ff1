package io.isthmus.broker.partition;

import io.isthmus.broker.partition.Partition.ProduceOutcome;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;

/**
 * Takes the TCP produce of a partition whose active segment RDMA producers share (KafkaDirect's shared RDMA/TCP
 * access): the broker reserves space through the same reservation word the RDMA producers use, so every writer's
 * batches are committed in one order. Installed as the partition's writer by the RDMA datapath.
 */
public interface SharedAppender {
    /**
     * Appends {@code batches} (whole RecordBatch v2 batches, valid until the returned future completes) in the shared
     * order. Called under the partition's append lock: it must only hand the work over, never wait for it.
     */
    CompletableFuture<ProduceOutcome> append(Partition partition, MemorySegment batches);
}
