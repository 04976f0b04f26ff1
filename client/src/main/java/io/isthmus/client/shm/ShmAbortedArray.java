package io.isthmus.client.shm;

import io.isthmus.protocol.control.AbortedTransactionsDescriptor;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A read-only mapping of one of the broker's aborted-transaction array files ({@link AbortedTransactionsDescriptor}):
 * entries {@code base} up to {@code base + capacity}, counted from the partition's first. A {@code read_committed}
 * reader copies the entries its slot counts into its own list, so the mapping is the reader's alone and closes with it.
 */
final class ShmAbortedArray implements AutoCloseable {
    final long id;
    final long base;
    final int capacity;
    private final Arena arena;
    private final MemorySegment entries;

    private ShmAbortedArray(
            final long id, final long base, final int capacity, final Arena arena, final MemorySegment entries) {
        this.id = id;
        this.base = base;
        this.capacity = capacity;
        this.arena = arena;
        this.entries = entries;
    }

    /** Maps {@code capacity} entries of {@code file}. */
    static ShmAbortedArray map(final Path file, final long id, final long base, final int capacity) throws IOException {
        final Arena arena = Arena.ofShared();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            final long bytes = (long) capacity * AbortedTransactionsDescriptor.ENTRY_LENGTH;
            return new ShmAbortedArray(
                    id, base, capacity, arena, channel.map(FileChannel.MapMode.READ_ONLY, 0, bytes, arena));
        } catch (final IOException | RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /** Whether entry {@code index} (counted from the partition's first) lies in this array. */
    boolean holds(final long index) {
        return index >= base && index < base + capacity;
    }

    long producerId(final long index) {
        return AbortedTransactionsDescriptor.producerId(entries, index - base);
    }

    long firstOffset(final long index) {
        return AbortedTransactionsDescriptor.firstOffset(entries, index - base);
    }

    long lastOffset(final long index) {
        return AbortedTransactionsDescriptor.lastOffset(entries, index - base);
    }

    @Override
    public void close() {
        arena.close();
    }
}
