package io.isthmus.broker.slots;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Where the memory of an {@link AbortedTransactionArray} comes from: the broker's own memory, which the RDMA datapath
 * registers for READ ({@link #OFF_HEAP}), or a file in the shared-memory directory that clients map.
 */
public interface AbortedArrayMemory {
    /**
     * Memory of the process, freed with its block. Replaced arrays are kept until the partition's last reader leaves:
     * an RDMA reader may still hold a registration of one.
     */
    AbortedArrayMemory OFF_HEAP = new AbortedArrayMemory() {
        @Override
        public Block allocate(final long bytes) {
            final Arena arena = Arena.ofShared();
            try {
                return new Block(arena.allocate(bytes, 8), -1, arena::close);
            } catch (final RuntimeException e) {
                arena.close();
                throw e;
            }
        }

        @Override
        public boolean keepsReplacedArrays() {
            return true;
        }
    };

    /** {@code bytes} of zeroed, 8-byte aligned memory. */
    Block allocate(long bytes);

    /**
     * Whether an array replaced by a larger one must stay until the partition's last reader leaves (readers reach it
     * through the broker: RDMA registrations), or can be freed at once (readers map it themselves: a client's mapping
     * outlives the file).
     */
    boolean keepsReplacedArrays();

    /**
     * One allocation.
     *
     * @param memory the array's memory
     * @param id what names it to clients (a shared-memory file's number), -1 for process memory
     * @param release frees it (and removes its file)
     */
    record Block(MemorySegment memory, long id, Runnable release) implements AutoCloseable {
        @Override
        public void close() {
            release.run();
        }
    }
}
