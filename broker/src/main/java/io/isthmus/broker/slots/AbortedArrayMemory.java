package io.isthmus.broker.slots;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Where the memory of an {@link AbortedTransactionArray} comes from: the broker's own memory, which the RDMA datapath
 * registers for READ ({@link #OFF_HEAP}), or a file in the shared-memory directory that clients map.
 */
@FunctionalInterface
public interface AbortedArrayMemory {
    /** Memory of the process, freed with its block. */
    AbortedArrayMemory OFF_HEAP = bytes -> {
        final Arena arena = Arena.ofShared();
        try {
            return new Block(arena.allocate(bytes, 8), -1, arena::close);
        } catch (final RuntimeException e) {
            arena.close();
            throw e;
        }
    };

    /** {@code bytes} of zeroed, 8-byte aligned memory. */
    Block allocate(long bytes);

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
