package io.isthmus.broker.rdma;

import io.isthmus.ffi.verbs.AccessFlags;
import io.isthmus.ffi.verbs.MemoryRegion;
import io.isthmus.ffi.verbs.ProtectionDomain;
import io.isthmus.protocol.control.ProduceAccessResponse;
import io.isthmus.protocol.control.ProduceStagingDescriptor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One RDMA session's produce staging slots ({@link ProduceStagingDescriptor}): memory of the broker's own, one slot per
 * credit, registered for remote WRITE in the session's protection domain and nowhere else. Producers write batches
 * here; the produce paths copy each into the log at commit. So the only remote-writable memory a producer ever holds
 * an rkey for is its own slots, and a write after an ack cannot reach a committed record.
 *
 * <p>Created at the session's first produce grant and freed with the session (deregistered, then the memory given
 * back). The slot of each write is found by counting the session's writes, in the order its queue pair delivers them.
 * Confined to the datapath thread.
 */
final class ProduceStaging implements AutoCloseable {
    private final Arena arena;
    private final MemoryRegion region;
    private final MemorySegment[] slots;
    private final int slotBytes;
    private long writes;

    private ProduceStaging(
            final Arena arena, final MemoryRegion region, final MemorySegment[] slots, final int slotBytes) {
        this.arena = arena;
        this.region = region;
        this.slots = slots;
        this.slotBytes = slotBytes;
    }

    /** {@code credits} slots of {@code slotBytes}, registered in {@code pd} for remote WRITE. */
    static ProduceStaging allocate(final ProtectionDomain pd, final int credits, final int slotBytes) {
        final Arena arena = Arena.ofShared();
        try {
            final MemorySegment memory = arena.allocate((long) credits * slotBytes, 4096);
            final MemoryRegion region = pd.registerMemory(memory, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
            final MemorySegment[] slots = new MemorySegment[credits];
            for (int i = 0; i < credits; i++) {
                slots[i] = memory.asSlice(ProduceStagingDescriptor.slotOffset(i, slotBytes), slotBytes);
            }
            return new ProduceStaging(arena, region, slots, slotBytes);
        } catch (final RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /** The slot the session's next write landed in (its writes arrive in the order they were posted). */
    MemorySegment nextWrite() {
        return slots[ProduceStagingDescriptor.slot(writes++, slots.length)];
    }

    /** Fills the staging fields every produce grant answers. */
    ProduceAccessResponse answer(final ProduceAccessResponse response) {
        return response.stagingAddress(region.address())
                .stagingRkey(region.rkey())
                .stagingSlotBytes(slotBytes);
    }

    /** Deregisters the slots (their rkey stops working), then frees them. */
    @Override
    public void close() {
        try {
            region.close();
        } finally {
            arena.close();
        }
    }
}
