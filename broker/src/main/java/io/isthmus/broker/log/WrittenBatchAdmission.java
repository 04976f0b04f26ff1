package io.isthmus.broker.log;

import java.lang.foreign.MemorySegment;

/**
 * Decides whether batches written in place at a segment's tail, already validated, are committed: the partition's
 * idempotent-producer check for RDMA writes. Called by {@link PartitionLog#commitWritten} under the log's append lock,
 * after validation and before offsets are assigned; a refusal zeroes the bytes, so neither the next writer nor recovery
 * after a crash can take them for a batch.
 */
@FunctionalInterface
public interface WrittenBatchAdmission {
    /**
     * @param mapping the segment's memory
     * @param position where the written batches start (the committed tail)
     * @param length their bytes
     * @return true to commit them, false to discard them (nothing is committed, the tail stays)
     */
    boolean admit(MemorySegment mapping, long position, long length);
}
