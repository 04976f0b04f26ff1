package io.isthmus.client.shm;

import io.isthmus.client.network.LeasedBuffer;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A read-only mapping of one of the broker's segment files: the memory a shared-memory consumer hands records out of,
 * in place. Counted: the reader that maps it holds one reference while it reads the segment, and every batch of
 * fetched data handed to the application holds one more; the last {@link #release()} unmaps it, so records can be read
 * until their batch is closed and no longer (access after that throws, as for any closed arena).
 *
 * <p>The file may be renamed or deleted by the broker's retention while mapped: the mapping keeps the bytes, which are
 * committed batches the broker never rewrites, and the reader learns from its slot that its access was revoked.
 */
public final class ShmSegmentMapping implements LeasedBuffer {
    private final Path file;
    private final int segmentId;
    private final Arena arena;
    private final MemorySegment memory;
    private final AtomicInteger references = new AtomicInteger(1);

    private ShmSegmentMapping(final Path file, final int segmentId, final Arena arena, final MemorySegment memory) {
        this.file = file;
        this.segmentId = segmentId;
        this.arena = arena;
        this.memory = memory;
    }

    /**
     * Maps {@code capacity} bytes of {@code file} read-only, with one reference for the caller.
     *
     * @throws IOException if the file is gone (retention renamed it since the grant) or cannot be read
     */
    static ShmSegmentMapping map(final Path file, final int segmentId, final long capacity) throws IOException {
        final Arena arena = Arena.ofShared();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            if (channel.size() < capacity) {
                throw new IOException("segment file shorter than its capacity: file=" + file + " size=" + channel.size()
                        + " capacity=" + capacity);
            }
            return new ShmSegmentMapping(
                    file, segmentId, arena, channel.map(FileChannel.MapMode.READ_ONLY, 0, capacity, arena));
        } catch (final IOException | RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /** One more reference: fetched data that lies in this mapping. */
    ShmSegmentMapping retain() {
        int current;
        do {
            current = references.get();
            if (current <= 0) {
                throw new IllegalStateException("segment mapping already unmapped: " + this);
            }
        } while (!references.compareAndSet(current, current + 1));
        return this;
    }

    /** Whether this maps the segment {@code segmentId} at {@code path} (ids are reused once a segment is gone). */
    boolean maps(final int segmentId, final String path) {
        return this.segmentId == segmentId && file.toString().equals(path);
    }

    @Override
    public MemorySegment segment() {
        return memory;
    }

    /** Drops a reference; the last one unmaps the file. */
    @Override
    public void release() {
        final int remaining = references.decrementAndGet();
        if (remaining == 0) {
            arena.close();
        } else if (remaining < 0) {
            throw new IllegalStateException("segment mapping released more often than retained: " + this);
        }
    }

    @Override
    public String toString() {
        return "ShmSegmentMapping{file=" + file + ", segmentId=" + segmentId + ", references=" + references.get() + '}';
    }
}
