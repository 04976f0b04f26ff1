package io.isthmus.client.network;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * An off-heap buffer one response frame is read into, taken from and given back to a {@link ReceiveBufferPool}. The
 * frame (without its 4-byte size prefix) starts at 0 of {@link #segment()}.
 *
 * <p>A buffer grows to fit a larger frame: growth frees the old memory at once (its own shared arena), so a stale slice
 * of it fails with {@link IllegalStateException} instead of reading reused bytes.
 */
public final class ReceiveBuffer implements LeasedBuffer {
    private final ReceiveBufferPool pool;
    private Arena arena;
    private MemorySegment segment;
    private ByteBuffer byteBuffer;
    private int frameLength;
    private boolean inUse;

    ReceiveBuffer(final ReceiveBufferPool pool, final long capacity) {
        this.pool = pool;
        allocate(capacity);
    }

    private void allocate(final long capacity) {
        final Arena newArena = Arena.ofShared();
        segment = newArena.allocate(capacity, 64);
        byteBuffer = segment.asByteBuffer();
        if (arena != null) {
            arena.close();
        }
        arena = newArena;
    }

    /** Makes room for a frame of {@code length} bytes (contents are not kept) and readies it for reading. */
    ByteBuffer prepare(final int length) {
        if (length > segment.byteSize()) {
            allocate(Math.max(length, Math.min(Integer.MAX_VALUE - 64L, segment.byteSize() * 2)));
        }
        frameLength = length;
        byteBuffer.clear().limit(length);
        return byteBuffer;
    }

    /** The whole buffer; the current frame is {@code [0, frameLength())}. */
    @Override
    public MemorySegment segment() {
        return segment;
    }

    /** A {@link ByteBuffer} view of the current frame, positioned at 0. */
    public ByteBuffer frame() {
        return byteBuffer.clear().limit(frameLength);
    }

    public int frameLength() {
        return frameLength;
    }

    public long capacity() {
        return segment.byteSize();
    }

    boolean inUse() {
        return inUse;
    }

    void inUse(final boolean inUse) {
        this.inUse = inUse;
    }

    /** Gives the buffer back to its pool: its bytes may be overwritten by the next frame from then on. */
    @Override
    public void release() {
        pool.release(this);
    }

    void free() {
        if (arena != null) {
            arena.close();
            arena = null;
        }
    }
}
