package io.isthmus.broker.shm;

import io.isthmus.broker.partition.Partition;
import io.isthmus.protocol.control.ProduceStagingDescriptor;
import java.lang.foreign.MemorySegment;

/**
 * A session's produce access to one partition: the staging file the producer hands batches through ({@code slots}
 * slots of {@code slotBytes}), named in its doorbells by the file's id. Doorbells {@link #acquire() use} the mapping
 * while they copy out of it; a grant {@link #close() closed} meanwhile (the session ended on another thread, the ACLs
 * changed, the broker stops) unmaps the file when the last of them is done, never under one.
 */
final class ShmProduceGrant {
    final Partition partition;
    /** The leader epoch the grant was made in; it ends with that epoch (see {@code LeaderAccess}). */
    final int leaderEpoch;
    /** The producer's acks: -1 answers a batch once min.insync.replicas hold it, within {@link #timeoutMs}. */
    final short acks;

    final int timeoutMs;
    final int slots;
    final int slotBytes;
    private final ShmStagingFile staging;
    private int users;
    private boolean closed;

    ShmProduceGrant(
            final Partition partition,
            final int leaderEpoch,
            final short acks,
            final int timeoutMs,
            final ShmStagingFile staging,
            final int slots,
            final int slotBytes) {
        this.partition = partition;
        this.leaderEpoch = leaderEpoch;
        this.acks = acks;
        this.timeoutMs = timeoutMs;
        this.staging = staging;
        this.slots = slots;
        this.slotBytes = slotBytes;
    }

    int id() {
        return staging.id();
    }

    String path() {
        return staging.path().toAbsolutePath().toString();
    }

    /** Slot {@code slot}'s memory, held until {@link #release()}; null once the grant is closed. */
    synchronized MemorySegment acquire(final int slot) {
        if (closed) {
            return null;
        }
        users++;
        return staging.memory().asSlice(ProduceStagingDescriptor.slotOffset(slot, slotBytes), slotBytes);
    }

    synchronized void release() {
        users--;
        if (closed && users == 0) {
            staging.close();
        }
    }

    /** Unmaps and deletes the staging file, at once or after the last doorbell using it. */
    synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (users == 0) {
            staging.close();
        }
    }

    @Override
    public String toString() {
        return "ShmProduceGrant{partition=" + partition.topicPartition() + ", leaderEpoch=" + leaderEpoch
                + ", stagingId=" + staging.id() + ", slots=" + slots + ", slotBytes=" + slotBytes + '}';
    }
}
