package io.isthmus.broker.rdma;

import io.isthmus.ffi.verbs.AccessFlags;
import io.isthmus.ffi.verbs.MemoryRegion;
import io.isthmus.ffi.verbs.ProtectionDomain;
import io.isthmus.protocol.control.SharedProduceWordDescriptor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.BitSet;

/**
 * The registered region that holds the reservation word ({@link SharedProduceWordDescriptor}) of every segment under
 * shared produce, one 8-byte word each, open to remote atomics.
 *
 * <pre>
 *   region:  | word 0 | word 1 | word 2 | ... | word n-1 |
 *            '- 8 B -'
 * </pre>
 *
 * <p>Words change only by FETCH_AND_ADD through the device (remote producers', and the broker's own through {@link
 * LoopbackAtomics}): a CPU atomic is not atomic with respect to the device's (IBV_ATOMIC_HCA). The broker writes a
 * word only to set it up, before anyone is told its address, and reads it (an aligned 8-byte load) to see how far
 * reservations have gone. Words are handed out and freed on the datapath thread.
 */
final class SharedWordRegion implements AutoCloseable {
    private static final VarHandle WORD = SharedProduceWordDescriptor.INT64.varHandle();

    private final Arena arena = Arena.ofShared();
    private final MemorySegment memory;
    private final MemoryRegion region;
    private final int words;
    private final BitSet used;

    SharedWordRegion(final ProtectionDomain pd, final int words) {
        this.words = words;
        this.used = new BitSet(words);
        this.memory = arena.allocate((long) words * SharedProduceWordDescriptor.LENGTH, 4096);
        try {
            this.region = pd.registerMemory(memory, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_ATOMIC);
        } catch (final RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /** A free word set to {@code initial}, or -1 when every word is taken. */
    int allocate(final long initial) {
        final int index = used.nextClearBit(0);
        if (index >= words) {
            return -1;
        }
        used.set(index);
        WORD.setRelease(memory, offset(index), initial);
        return index;
    }

    void free(final int index) {
        if (index < 0 || index >= words || !used.get(index)) {
            throw new IllegalStateException("freeing a reservation word that is not allocated: index=" + index);
        }
        WORD.setRelease(memory, offset(index), 0L);
        used.clear(index);
    }

    /** The word's value now. */
    long read(final int index) {
        return (long) WORD.getAcquire(memory, offset(index));
    }

    /** Word {@code index} alone: what one producer's registration covers, so it can reach no other word. */
    MemorySegment word(final int index) {
        return memory.asSlice(offset(index), SharedProduceWordDescriptor.LENGTH);
    }

    /** Remote address of word {@code index} in the broker's own registration (its loopback atomics). */
    long address(final int index) {
        return region.address() + offset(index);
    }

    int rkey() {
        return region.rkey();
    }

    int inUse() {
        return used.cardinality();
    }

    private static long offset(final int index) {
        return (long) index * SharedProduceWordDescriptor.LENGTH;
    }

    @Override
    public void close() {
        region.close();
        arena.close();
    }
}
