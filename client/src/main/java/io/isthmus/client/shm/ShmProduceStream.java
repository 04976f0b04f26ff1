package io.isthmus.client.shm;

import io.isthmus.client.network.OneSidedProducerTransport;
import io.isthmus.protocol.control.ProduceStagingDescriptor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * One partition's shared-memory produce access: the staging file the broker granted, mapped read-write here, used
 * slot after slot in turn (a slot is free again once the doorbell that used it was answered: answers come in the order
 * rung). Sender thread only.
 */
final class ShmProduceStream implements OneSidedProducerTransport.Stream {
    final String topic;
    final int partition;
    InetSocketAddress broker;
    boolean needsAccess = true;
    int stagingId;
    int slots;
    int slotBytes;
    MemorySegment staging;
    private Arena mapping;
    int nextSlot;
    int inFlight;
    /** The session its doorbells in flight were rung on (they never span two); meaningful while {@link #inFlight} > 0. */
    Object inFlightOn;

    ShmProduceStream(final String topic, final int partition, final InetSocketAddress broker) {
        this.topic = topic;
        this.partition = partition;
        this.broker = broker;
    }

    @Override
    public void leader(final InetSocketAddress leader) {
        if (!leader.equals(broker)) {
            broker = leader;
            needsAccess = true;
        }
    }

    /** Access granted: the staging file, mapped by {@code mapping} (this stream owns it from here). */
    void granted(
            final int stagingId,
            final int slots,
            final int slotBytes,
            final MemorySegment staging,
            final Arena mapping) {
        unmap();
        this.stagingId = stagingId;
        this.slots = slots;
        this.slotBytes = slotBytes;
        this.staging = staging;
        this.mapping = mapping;
        this.nextSlot = 0;
        this.needsAccess = false;
    }

    /** Slot {@code slot} of the staging file. */
    MemorySegment slot(final int slot) {
        return staging.asSlice(ProduceStagingDescriptor.slotOffset(slot, slotBytes), slotBytes);
    }

    /** Access is gone (revoked, connection lost): asked for again before the next write, once none is in flight. */
    void lost() {
        needsAccess = true;
    }

    /** Unmaps the staging file (access lost for good, or the producer closing). */
    void unmap() {
        if (mapping != null) {
            mapping.close();
            mapping = null;
            staging = null;
        }
    }

    @Override
    public String toString() {
        return "ShmProduceStream{" + topic + '-' + partition + ", broker=" + broker + ", stagingId=" + stagingId
                + ", slots=" + slots + ", slotBytes=" + slotBytes + ", inFlight=" + inFlight + '}';
    }
}
