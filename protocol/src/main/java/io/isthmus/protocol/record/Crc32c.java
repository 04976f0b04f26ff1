package io.isthmus.protocol.record;

import java.lang.foreign.MemorySegment;
import java.util.zip.CRC32C;

/**
 * CRC-32C (Castagnoli) over memory segments, the checksum of RecordBatch v2.
 *
 * <p>Why there is no lookup table of our own: {@link java.util.zip.CRC32C} is a HotSpot intrinsic. On x86-64 it uses
 * the SSE4.2 {@code crc32} instruction (with carry-less-multiply folding over three streams for long inputs), on
 * AArch64 the {@code crc32c} instructions, and only falls back to a table elsewhere. A Java slicing-by-8 table loop
 * reaches maybe 1-2 GB/s; the intrinsic runs at memory speed. Kafka itself ({@code Crc32C}) uses the JDK class for the
 * same reason. A direct (off-heap) {@link java.nio.ByteBuffer} view lets the intrinsic read the native memory in place,
 * and a heap segment's view reads its array in place: nothing is copied.
 *
 * <p>Cost: the segment slice and its {@code ByteBuffer} view are two small objects per call, and one {@code CRC32C}
 * per thread is reused. Callers compute one CRC per batch, never per record.
 */
public final class Crc32c {
    private static final ThreadLocal<CRC32C> CRC = ThreadLocal.withInitial(CRC32C::new);

    private Crc32c() {}

    /** CRC-32C of {@code length} bytes of {@code segment} starting at {@code offset}, as an unsigned 32-bit value. */
    public static long compute(final MemorySegment segment, final long offset, final long length) {
        final CRC32C crc = CRC.get();
        crc.reset();
        update(crc, segment, offset, length);
        return crc.getValue();
    }

    /** Feeds {@code length} bytes of {@code segment} at {@code offset} into {@code crc}. */
    public static void update(final CRC32C crc, final MemorySegment segment, final long offset, final long length) {
        long position = offset;
        long remaining = length;
        // A ByteBuffer view is limited to Integer.MAX_VALUE bytes; batches always are, but stay general.
        while (remaining > 0) {
            final int chunk = (int) Math.min(remaining, Integer.MAX_VALUE - 8);
            crc.update(segment.asSlice(position, chunk).asByteBuffer());
            position += chunk;
            remaining -= chunk;
        }
    }

    /** CRC-32C of a byte array range. */
    public static long compute(final byte[] bytes, final int offset, final int length) {
        final CRC32C crc = CRC.get();
        crc.reset();
        crc.update(bytes, offset, length);
        return crc.getValue();
    }
}
