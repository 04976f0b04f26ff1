package io.isthmus.protocol.record;

import com.github.luben.zstd.ZstdCompressCtx;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.xxhash.XXHashFactory;
import org.xerial.snappy.Snappy;

/**
 * Compresses a records section, off-heap to off-heap, in the stream formats Kafka reads (see {@link
 * BatchDecompressor} for each format). Output matches what Kafka's own writers produce in structure: gzip one member,
 * snappy-java framing with 32 KiB chunks, LZ4 frames with 64 KiB independent blocks and no checksums (Kafka's {@code
 * Lz4BlockOutputStream} defaults), one zstd frame.
 *
 * <p>Owns reusable codec contexts ({@link Deflater}, {@link ZstdCompressCtx}) and small scratch buffers. Not
 * thread-safe; {@link #close()} frees them.
 */
public final class BatchCompressor implements AutoCloseable {
    /** Kafka's default levels: gzip {@link Deflater#DEFAULT_COMPRESSION}, lz4 9, zstd 3. */
    public static final int GZIP_DEFAULT_LEVEL = Deflater.DEFAULT_COMPRESSION;

    public static final int LZ4_DEFAULT_LEVEL = 9;
    public static final int ZSTD_DEFAULT_LEVEL = 3;

    static final int SNAPPY_CHUNK = 32 * 1024;
    static final int LZ4_BLOCK = 64 * 1024;

    private static final ValueLayout.OfInt INT32_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT32_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final Arena arena = Arena.ofShared();
    private MemorySegment scratch;
    private Deflater deflater;
    private int deflaterLevel = Integer.MIN_VALUE;
    private CRC32 crc32;
    private ZstdCompressCtx zstd;
    private int zstdLevel = Integer.MIN_VALUE;
    private boolean closed;

    /** Kafka's default level for a codec (0 for NONE and SNAPPY, which have none). */
    public static int defaultLevel(final CompressionType type) {
        return switch (type) {
            case GZIP -> GZIP_DEFAULT_LEVEL;
            case LZ4 -> LZ4_DEFAULT_LEVEL;
            case ZSTD -> ZSTD_DEFAULT_LEVEL;
            default -> 0;
        };
    }

    /** A bound on the compressed size of {@code length} bytes, frame overhead included. */
    public static long maxCompressedLength(final CompressionType type, final long length) {
        return switch (type) {
            case NONE -> length;
            case GZIP -> length + length / 1000 + (length >>> 14) * 5 + 64;
            case SNAPPY ->
                BatchDecompressor.SNAPPY_HEADER_LENGTH
                        + (length / SNAPPY_CHUNK + 1) * (4 + Snappy.maxCompressedLength(SNAPPY_CHUNK));
            case LZ4 -> 7 + (length / LZ4_BLOCK + 1) * (4 + LZ4_BLOCK) + 4;
            case ZSTD -> com.github.luben.zstd.Zstd.compressBound(length) + 16;
        };
    }

    /**
     * Compresses {@code length} bytes at {@code srcOffset} of {@code src} into {@code dst} at {@code dstOffset}, using
     * at most {@code dstCapacity} bytes there.
     *
     * @param level codec level; {@link #defaultLevel} gives Kafka's
     * @return the compressed size, or -1 if it does not fit in {@code dstCapacity}
     */
    public long compress(
            final CompressionType type,
            final int level,
            final MemorySegment src,
            final long srcOffset,
            final long length,
            final MemorySegment dst,
            final long dstOffset,
            final long dstCapacity) {
        if (closed) {
            throw new IllegalStateException("compressor closed");
        }
        if (length > Integer.MAX_VALUE - 64) {
            throw new IllegalArgumentException("records section too large: " + length);
        }
        final long capacity = Math.min(dstCapacity, Integer.MAX_VALUE - 64);
        if (!src.isNative() || !dst.isNative()) {
            throw new IllegalArgumentException("compression needs off-heap (native) source and target segments");
        }
        try {
            return switch (type) {
                case NONE -> {
                    if (length > capacity) {
                        yield -1;
                    }
                    MemorySegment.copy(src, srcOffset, dst, dstOffset, length);
                    yield length;
                }
                case GZIP -> gzip(level, src, srcOffset, length, dst, dstOffset, capacity);
                case SNAPPY -> snappy(src, srcOffset, length, dst, dstOffset, capacity);
                case LZ4 -> lz4(level, src, srcOffset, length, dst, dstOffset, capacity);
                case ZSTD -> zstd(level, src, srcOffset, length, dst, dstOffset, capacity);
            };
        } catch (final java.io.IOException e) {
            throw new IllegalStateException(type + " compression failed", e);
        }
    }

    private MemorySegment scratch(final long size) {
        if (scratch == null || scratch.byteSize() < size) {
            scratch = arena.allocate(Math.max(size, 4096), 8);
        }
        return scratch;
    }

    // ------------------------------------------------------------------ gzip

    private long gzip(
            final int level,
            final MemorySegment src,
            final long srcOffset,
            final long length,
            final MemorySegment dst,
            final long dstOffset,
            final long capacity) {
        if (capacity < 18) {
            return -1;
        }
        if (deflater == null || deflaterLevel != level) {
            if (deflater != null) {
                deflater.end();
            }
            deflater = new Deflater(level, true);
            deflaterLevel = level;
            crc32 = new CRC32();
        }
        // RFC 1952 header as java.util.zip.GZIPOutputStream writes it: no flags, no mtime, XFL 0, OS 255 (unknown).
        final byte[] header = {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, (byte) 0xff};
        MemorySegment.copy(header, 0, dst, ValueLayout.JAVA_BYTE, dstOffset, header.length);
        final Deflater def = deflater;
        def.reset();
        final ByteBuffer in = src.asSlice(srcOffset, length).asByteBuffer();
        def.setInput(in);
        def.finish();
        final long bodyCapacity = capacity - 10 - 8;
        final ByteBuffer out = dst.asSlice(dstOffset + 10, bodyCapacity).asByteBuffer();
        while (!def.finished()) {
            if (!out.hasRemaining()) {
                return -1;
            }
            def.deflate(out);
        }
        final long body = out.position();
        crc32.reset();
        crc32.update(src.asSlice(srcOffset, length).asByteBuffer());
        final long trailer = dstOffset + 10 + body;
        dst.set(INT32_LE, trailer, (int) crc32.getValue());
        dst.set(INT32_LE, trailer + 4, (int) length);
        return 10 + body + 8;
    }

    // ------------------------------------------------------------------ snappy

    private long snappy(
            final MemorySegment src,
            final long srcOffset,
            final long length,
            final MemorySegment dst,
            final long dstOffset,
            final long capacity)
            throws java.io.IOException {
        if (capacity < BatchDecompressor.SNAPPY_HEADER_LENGTH) {
            return -1;
        }
        MemorySegment.copy(BatchDecompressor.SNAPPY_MAGIC, 0, dst, ValueLayout.JAVA_BYTE, dstOffset, 8);
        dst.set(INT32_BE, dstOffset + 8, 1); // version
        dst.set(INT32_BE, dstOffset + 12, 1); // minimum compatible version
        long out = BatchDecompressor.SNAPPY_HEADER_LENGTH;
        final int maxChunk = Snappy.maxCompressedLength(SNAPPY_CHUNK);
        // Snappy's native code does not bound its output: compress each chunk into scratch, then copy if it fits.
        final MemorySegment chunkOut = scratch(maxChunk);
        for (long done = 0; done < length; ) {
            final int n = (int) Math.min(SNAPPY_CHUNK, length - done);
            final ByteBuffer in = src.asSlice(srcOffset + done, n).asByteBuffer();
            final ByteBuffer co = chunkOut.asSlice(0, maxChunk).asByteBuffer();
            final int c = Snappy.compress(in, co);
            if (out + 4 + c > capacity) {
                return -1;
            }
            dst.set(INT32_BE, dstOffset + out, c);
            MemorySegment.copy(chunkOut, 0, dst, dstOffset + out + 4, c);
            out += 4 + c;
            done += n;
        }
        return out;
    }

    // ------------------------------------------------------------------ lz4

    private static final class Lz4 {
        static final LZ4Factory FACTORY = LZ4Factory.fastestInstance();
        static final LZ4Compressor FAST = FACTORY.fastCompressor();
        /** FLG: version 01, independent blocks; BD: 64 KiB max block. */
        static final byte FLG = 0x60;

        static final byte BD = 0x40;
        static final byte HC;

        static {
            final ByteBuffer descriptor = ByteBuffer.wrap(new byte[] {FLG, BD});
            HC = (byte) ((XXHashFactory.fastestInstance().hash32().hash(descriptor, 0, 2, 0) >> 8) & 0xFF);
        }
    }

    private long lz4(
            final int level,
            final MemorySegment src,
            final long srcOffset,
            final long length,
            final MemorySegment dst,
            final long dstOffset,
            final long capacity) {
        if (capacity < 11) {
            return -1;
        }
        // As Kafka: the fast compressor at the default level, the high-compression one at any other.
        final LZ4Compressor compressor = level == LZ4_DEFAULT_LEVEL ? Lz4.FAST : Lz4.FACTORY.highCompressor(level);
        dst.set(INT32_LE, dstOffset, BatchDecompressor.LZ4_MAGIC);
        dst.set(ValueLayout.JAVA_BYTE, dstOffset + 4, Lz4.FLG);
        dst.set(ValueLayout.JAVA_BYTE, dstOffset + 5, Lz4.BD);
        dst.set(ValueLayout.JAVA_BYTE, dstOffset + 6, Lz4.HC);
        long out = 7;
        final ByteBuffer in = src.asSlice(srcOffset, length).asByteBuffer();
        final ByteBuffer target = dst.asSlice(dstOffset, capacity).asByteBuffer();
        for (long done = 0; done < length; ) {
            final int n = (int) Math.min(LZ4_BLOCK, length - done);
            final long room = capacity - out - 4;
            if (room <= 0) {
                return -1;
            }
            int written;
            try {
                // Worth storing compressed only if smaller than the block itself.
                written = compressor.compress(in, (int) done, n, target, (int) (out + 4), (int) Math.min(room, n - 1));
            } catch (final LZ4Exception e) {
                written = -1;
            }
            if (written > 0 && written < n) {
                dst.set(INT32_LE, dstOffset + out, written);
            } else {
                if (n > room) {
                    return -1;
                }
                MemorySegment.copy(src, srcOffset + done, dst, dstOffset + out + 4, n);
                dst.set(INT32_LE, dstOffset + out, n | BatchDecompressor.LZ4_INCOMPRESSIBLE_MASK);
                written = n;
            }
            out += 4 + written;
            done += n;
        }
        if (capacity - out < 4) {
            return -1;
        }
        dst.set(INT32_LE, dstOffset + out, 0); // end mark
        return out + 4;
    }

    // ------------------------------------------------------------------ zstd

    private long zstd(
            final int level,
            final MemorySegment src,
            final long srcOffset,
            final long length,
            final MemorySegment dst,
            final long dstOffset,
            final long capacity) {
        if (zstd == null) {
            zstd = new ZstdCompressCtx();
        }
        if (zstdLevel != level) {
            zstd.setLevel(level);
            zstdLevel = level;
        }
        final ByteBuffer in = src.asSlice(srcOffset, length).asByteBuffer();
        final ByteBuffer out = dst.asSlice(dstOffset, capacity).asByteBuffer();
        try {
            return zstd.compressDirectByteBuffer(out, 0, (int) capacity, in, 0, (int) length);
        } catch (final com.github.luben.zstd.ZstdException e) {
            // zstd reports "destination buffer too small" as an exception; anything else is a real failure.
            if (capacity < com.github.luben.zstd.Zstd.compressBound(length)) {
                return -1;
            }
            throw e;
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (deflater != null) {
            deflater.end();
        }
        if (zstd != null) {
            zstd.close();
        }
        arena.close();
    }
}
