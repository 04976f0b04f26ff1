package io.isthmus.broker.rdma;

import io.isthmus.broker.partition.Partition;
import io.isthmus.protocol.control.ProduceImmediateDescriptor;

/**
 * Produce access of one connection to one partition's active segment. Exclusive: where the next batch must start and
 * which order number its immediate must carry. Shared: the {@link SharedSegment} whose word the producer reserves
 * through (the broker orders its writes there). Confined to the datapath thread.
 */
final class ProduceGrant {
    final Partition partition;
    final SegmentRegistration registration;
    /** Null for exclusive access. */
    final SharedSegment shared;

    long tail;
    int nextOrder;
    /**
     * Exclusive: a write was discarded as a duplicate, so the producer's idea of the tail is ahead of ours; its writes
     * are answered ACCESS_REVOKED until it asks for access again and learns {@link #tail} and {@link #nextOrder}.
     */
    boolean suspended;

    private ProduceGrant(
            final Partition partition, final SegmentRegistration registration, final SharedSegment shared) {
        this.partition = partition;
        this.registration = registration;
        this.shared = shared;
        this.tail = registration.segment().committedPosition();
        this.nextOrder = 0;
    }

    static ProduceGrant exclusive(final Partition partition, final SegmentRegistration registration) {
        return new ProduceGrant(partition, registration, null);
    }

    static ProduceGrant shared(final SharedSegment segment) {
        return new ProduceGrant(segment.owner.partition, segment.registration, segment);
    }

    int segmentId() {
        return registration.segment().id();
    }

    void committed(final long length) {
        tail += length;
        nextOrder = ProduceImmediateDescriptor.nextOrder(nextOrder);
    }

    /** A write in order that committed nothing (a duplicate): its order is used up, the tail stays. */
    void skipped() {
        nextOrder = ProduceImmediateDescriptor.nextOrder(nextOrder);
    }

    @Override
    public String toString() {
        return shared != null
                ? "ProduceGrant{partition=" + partition.topicPartition() + ", shared=" + shared + '}'
                : "ProduceGrant{partition=" + partition.topicPartition() + ", segmentId=" + segmentId() + ", tail="
                        + tail + ", nextOrder=" + nextOrder + (suspended ? ", suspended" : "") + '}';
    }
}
