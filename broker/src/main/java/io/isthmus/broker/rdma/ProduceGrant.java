package io.isthmus.broker.rdma;

import io.isthmus.broker.partition.Partition;
import io.isthmus.client.rdma.ProduceImmediateDescriptor;

/**
 * Exclusive produce access of one connection to one partition's active segment: where the next batch must start and
 * which order number its immediate must carry. Confined to the datapath thread.
 */
final class ProduceGrant {
    final Partition partition;
    SegmentRegistration registration;
    long tail;
    int nextOrder;

    ProduceGrant(final Partition partition, final SegmentRegistration registration) {
        this.partition = partition;
        this.registration = registration;
        this.tail = registration.segment().committedPosition();
        this.nextOrder = 0;
    }

    int segmentId() {
        return registration.segment().id();
    }

    void committed(final long length) {
        tail += length;
        nextOrder = ProduceImmediateDescriptor.nextOrder(nextOrder);
    }

    @Override
    public String toString() {
        return "ProduceGrant{partition=" + partition.topicPartition() + ", segmentId=" + segmentId() + ", tail=" + tail
                + ", nextOrder=" + nextOrder + '}';
    }
}
