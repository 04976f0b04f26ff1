package io.isthmus.client.rdma;

import io.isthmus.client.network.OneSidedProducerTransport;
import io.isthmus.protocol.control.ProduceAccessResponse;
import java.net.InetSocketAddress;

/**
 * A producer's write access to one partition (KafkaDirect section 4.2.2): the granted segment and its capacity, the
 * connection's staging slots its batches are written into, and then either (exclusive) the tail where the next batch
 * will go and the order its immediate carries, or (shared) the reservation word every batch is placed through. Owned by
 * the producer's sender thread; {@link RdmaProducerTransport} updates it.
 */
public final class RdmaProduceStream implements OneSidedProducerTransport.Stream {
    final String topic;
    final int partition;
    InetSocketAddress broker;
    RdmaProducerTransport.Link link;

    boolean needsAccess = true;
    int segmentId = -1;
    /** The connection's staging slots ({@link io.isthmus.protocol.control.ProduceStagingDescriptor}). */
    long stagingAddress;

    int stagingRkey;
    int stagingSlotBytes;
    long capacity;
    long tail;
    int nextOrder;
    /** Shared access: the segment's reservation word. */
    boolean shared;

    long wordAddress;
    int wordRkey;
    /** Shared access: the order of a reservation that overflowed the segment (roll next), or -1. */
    int overflowedOrder = -1;
    /** Writes of this stream not acknowledged yet. */
    int inFlight;

    /** Push replication: the leader this stream writes for, and its leader epoch; -1 for a producer's stream. */
    final int replicaLeaderId;

    final int replicaLeaderEpoch;

    RdmaProduceStream(final String topic, final int partition, final InetSocketAddress broker) {
        this(topic, partition, broker, -1, -1);
    }

    RdmaProduceStream(
            final String topic,
            final int partition,
            final InetSocketAddress broker,
            final int replicaLeaderId,
            final int replicaLeaderEpoch) {
        this.topic = topic;
        this.partition = partition;
        this.broker = broker;
        this.replicaLeaderId = replicaLeaderId;
        this.replicaLeaderEpoch = replicaLeaderEpoch;
    }

    /** Whether a leader pushes a follower's replica through this stream (see {@link RdmaProducerTransport#replicaStream}). */
    public boolean replica() {
        return replicaLeaderId >= 0;
    }

    /** The broker the stream writes to. */
    public InetSocketAddress broker() {
        return broker;
    }

    /** Whether the stream has no grant now: never had one, or an error or a lost connection ended it. */
    public boolean needsAccess() {
        return needsAccess;
    }

    /** Writes of this stream not answered yet. */
    public int inFlight() {
        return inFlight;
    }

    /** The most bytes one write may carry: the broker's staging slot size, known once access is granted. */
    public int stagingSlotBytes() {
        return stagingSlotBytes;
    }

    public String topic() {
        return topic;
    }

    public int partition() {
        return partition;
    }

    @Override
    public void leader(final InetSocketAddress leader) {
        if (!leader.equals(broker)) {
            broker = leader;
            needsAccess = true;
        }
    }

    /** Copies the grant out of {@code access}, which is valid only until its connection's next control request. */
    void granted(final ProduceAccessResponse access) {
        segmentId = access.segmentId();
        stagingAddress = access.stagingAddress();
        stagingRkey = access.stagingRkey();
        stagingSlotBytes = access.stagingSlotBytes();
        capacity = access.capacity();
        tail = access.tailPosition();
        nextOrder = access.firstOrder();
        shared = access.shared();
        wordAddress = access.wordAddress();
        wordRkey = access.wordRkey();
        overflowedOrder = -1;
        needsAccess = false;
    }

    @Override
    public String toString() {
        return "RdmaProduceStream{" + topic + "-" + partition
                + (replica() ? ", replicaOfLeader=" + replicaLeaderId + "@" + replicaLeaderEpoch : "") + ", segmentId="
                + segmentId + ", shared=" + shared
                + ", tail=" + tail
                + ", capacity=" + capacity + ", nextOrder=" + nextOrder + ", inFlight=" + inFlight + ", broker="
                + broker + '}';
    }
}
