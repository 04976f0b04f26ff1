package io.isthmus.protocol.record;

import static io.isthmus.protocol.record.InvalidRecordBatchException.Reason.CORRUPT_COMPRESSED_DATA;
import static io.isthmus.protocol.record.InvalidRecordBatchException.Reason.DECOMPRESSED_TOO_LARGE;

import com.github.luben.zstd.ZstdDecompressCtx;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;
import net.jpountz.xxhash.XXHash32;
import net.jpountz.xxhash.XXHashFactory;
import org.xerial.snappy.Snappy;

/**
 * Decompresses the records section of compressed batches into an off-heap buffer it owns and reuses, growing it
 * (doubling) as needed. Records of a compressed batch are then read in place from {@link #buffer()}.
 *
 * <p>Formats, all as Kafka writes and reads them:
 *
 * <ul>
 *   <li>gzip: RFC 1952 (one or more members), inflated with {@link Inflater} straight between off-heap buffers;
 *       the trailer's CRC-32 and size are checked.
 *   <li>snappy: snappy-java's stream framing ({@code SnappyOutputStream}): a 16-byte header (magic {@code 0x82
 *       "SNAPPY" 0}, version, compatible version) then chunks of a big-endian int32 length and a raw snappy block.
 *   <li>lz4: the LZ4 frame format as Kafka's {@code Lz4BlockOutputStream} writes it: little-endian magic {@code
 *       0x184D2204}, FLG (version 1, independent blocks, optional block checksum, optional content size), BD (max
 *       block size 64 KB..4 MB), header checksum {@code (xxhash32(FLG..) >> 8) & 0xFF}, then blocks of a
 *       little-endian int32 size (high bit = stored uncompressed), an end mark of 0 and an optional content checksum
 *       (skipped: the batch CRC covers these bytes already). Block checksums are verified when present.
 *   <li>zstd: one or more zstd frames, through a reused {@link ZstdDecompressCtx} between off-heap buffers.
 * </ul>
 *
 * <p>Allocation: a few small objects per batch (buffer views, codec calls), never per record. Growth allocates a new
 * buffer and copies what was decompressed so far. The previous buffer is freed at once (explicit arenas), so any
 * record slice into it then fails with {@link IllegalStateException} rather than reading reused memory.
 *
 * <p>Corrupt input of any kind raises {@link InvalidRecordBatchException} with reason {@link
 * InvalidRecordBatchException.Reason#CORRUPT_COMPRESSED_DATA}. Output beyond {@link #maxDecompressedSize()} raises it
 * with reason {@link InvalidRecordBatchException.Reason#DECOMPRESSED_TOO_LARGE} as soon as the output passes the limit
 * (a guard against decompression bombs: the buffer never grows past the limit). {@link #release()} gives a buffer
 * grown past the initial capacity back, so that one large batch does not pin its memory for the owner's lifetime.
 *
 * <p>Not thread-safe. {@link #close()} frees the buffer and the native codec contexts.
 */
public final class BatchDecompressor implements AutoCloseable {
    /** Default initial buffer size. */
    public static final long DEFAULT_INITIAL_CAPACITY = 64 * 1024;
    /** Default cap on the decompressed size of one batch. */
    public static final long DEFAULT_MAX_DECOMPRESSED_SIZE = Integer.MAX_VALUE - 64;

    static final byte[] SNAPPY_MAGIC = {(byte) 0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
    static final int SNAPPY_HEADER_LENGTH = 16;
    static final int LZ4_MAGIC = 0x184D2204;
    static final int LZ4_INCOMPRESSIBLE_MASK = 0x80000000;

    private static final ValueLayout.OfInt INT32_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT32_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort INT16_LE =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final boolean autoArena;
    private final long initialCapacity;
    private final long maxDecompressedSize;
    private Arena arena;
    private MemorySegment buffer;
    private Arena inputArena;
    private MemorySegment input;
    private Inflater inflater;
    private CRC32 crc32;
    private ZstdDecompressCtx zstd;
    private boolean closed;

    /** A decompressor with a 64 KiB initial buffer in explicit (shared) arenas: close it when done. */
    public BatchDecompressor() {
        this(DEFAULT_INITIAL_CAPACITY, DEFAULT_MAX_DECOMPRESSED_SIZE, false);
    }

    public BatchDecompressor(final long initialCapacity, final long maxDecompressedSize) {
        this(initialCapacity, maxDecompressedSize, false);
    }

    private BatchDecompressor(final long initialCapacity, final long maxDecompressedSize, final boolean autoArena) {
        if (initialCapacity <= 0 || maxDecompressedSize <= 0 || maxDecompressedSize > DEFAULT_MAX_DECOMPRESSED_SIZE) {
            throw new IllegalArgumentException(
                    "capacity " + initialCapacity + ", max decompressed size " + maxDecompressedSize);
        }
        this.autoArena = autoArena;
        this.initialCapacity = Math.min(initialCapacity, maxDecompressedSize);
        this.maxDecompressedSize = maxDecompressedSize;
        this.arena = newArena();
        this.buffer = arena.allocate(this.initialCapacity, 8);
    }

    /**
     * A decompressor whose buffers are garbage-collected ({@link Arena#ofAuto()}) and whose native codec contexts are
     * released by their own cleaners: for owners that cannot close it (the {@link RecordBatch} flyweight's own).
     */
    public static BatchDecompressor ofAuto() {
        return new BatchDecompressor(DEFAULT_INITIAL_CAPACITY, DEFAULT_MAX_DECOMPRESSED_SIZE, true);
    }

    private Arena newArena() {
        return autoArena ? Arena.ofAuto() : Arena.ofShared();
    }

    /** The whole output buffer; decompressed records start at 0. Replaced when it grows. */
    public MemorySegment buffer() {
        return buffer;
    }

    public long capacity() {
        return buffer.byteSize();
    }

    public long maxDecompressedSize() {
        return maxDecompressedSize;
    }

    /**
     * Decompresses the records section of {@code batch} into {@link #buffer()} from position 0.
     *
     * @return the number of decompressed bytes
     * @throws InvalidRecordBatchException if the codec is unknown or the data is corrupt
     */
    public long decompress(final RecordBatch batch) {
        final CompressionType type = batch.compression();
        final long start = batch.offset() + RecordBatchDescriptor.RECORDS_OFFSET;
        final long length = (long) batch.sizeInBytes() - RecordBatchDescriptor.RECORDS_OFFSET;
        return decompress(type, batch.segment(), start, length, batch.offset());
    }

    /**
     * Decompresses {@code length} bytes at {@code offset} of {@code source} (a compressed records section) into
     * {@link #buffer()} from position 0.
     *
     * @param batchOffset where the batch starts, for error reports (-1 if unknown)
     * @return the number of decompressed bytes
     */
    public long decompress(
            final CompressionType type,
            final MemorySegment source,
            final long offset,
            final long length,
            final long batchOffset) {
        if (closed) {
            throw new IllegalStateException("decompressor closed");
        }
        if (length < 0 || offset < 0 || offset + length > source.byteSize() || length > Integer.MAX_VALUE - 8) {
            throw corrupt(batchOffset, offset, type, "compressed section out of bounds: " + length + " bytes", null);
        }
        MemorySegment src = source;
        long pos = offset;
        if (!source.isNative() && type != CompressionType.NONE) {
            // The native codecs need off-heap input: copy a heap section once into the input scratch buffer.
            src = inputScratch(length);
            MemorySegment.copy(source, offset, src, 0, length);
            pos = 0;
        }
        try {
            return switch (type) {
                case NONE -> copyUncompressed(source, offset, length);
                case GZIP -> gunzip(src, pos, pos + length);
                case SNAPPY -> unsnappy(src, pos, pos + length);
                case LZ4 -> unlz4(src, pos, pos + length);
                case ZSTD -> unzstd(src, pos, pos + length);
            };
        } catch (final TooLargeException e) {
            throw new InvalidRecordBatchException(
                    DECOMPRESSED_TOO_LARGE,
                    batchOffset,
                    offset + (e.position - pos),
                    "records (" + type.configName() + ")",
                    "at most " + maxDecompressedSize + " bytes decompressed",
                    e.getMessage(),
                    false,
                    null);
        } catch (final CorruptException e) {
            throw corrupt(batchOffset, offset + (e.position - pos), type, e.getMessage(), null);
        } catch (final InvalidRecordBatchException | IllegalStateException e) {
            // Ours, or a closed arena / wrong thread: not a statement about the data.
            throw e;
        } catch (final RuntimeException | java.io.IOException | DataFormatException | Error e) {
            if (e instanceof OutOfMemoryError oom) {
                throw oom;
            }
            // Codec libraries report corrupt input as IOExceptions, LZ4Exception, ZstdException, SnappyError...
            throw corrupt(batchOffset, offset, type, e.getClass().getSimpleName() + ": " + e.getMessage(), e);
        }
    }

    private static InvalidRecordBatchException corrupt(
            final long batchOffset,
            final long position,
            final CompressionType type,
            final String detail,
            final Throwable cause) {
        return new InvalidRecordBatchException(
                CORRUPT_COMPRESSED_DATA,
                batchOffset,
                position,
                "records (" + type.configName() + ")",
                "a valid " + type.configName() + " stream",
                detail,
                false,
                cause);
    }

    /** Thrown internally with the position in the compressed input. */
    private static class CorruptException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final long position;

        CorruptException(final long position, final String message) {
            super(message, null, false, false);
            this.position = position;
        }
    }

    /** The output would pass {@link #maxDecompressedSize()}. */
    private static final class TooLargeException extends CorruptException {
        private static final long serialVersionUID = 1L;

        TooLargeException(final long position, final String message) {
            super(position, message);
        }
    }

    private MemorySegment inputScratch(final long length) {
        if (input == null || input.byteSize() < length) {
            if (inputArena != null && !autoArena) {
                inputArena.close();
            }
            inputArena = newArena();
            input = inputArena.allocate(Math.max(length, 4096), 8);
        }
        return input;
    }

    /** Makes the buffer at least {@code required} bytes, keeping the first {@code used} bytes. */
    private void ensureCapacity(final long required, final long used, final long position) {
        if (required <= buffer.byteSize()) {
            return;
        }
        if (required > maxDecompressedSize) {
            throw new TooLargeException(
                    position, "decompressed size exceeds the limit of " + maxDecompressedSize + " bytes");
        }
        final long newCapacity = Math.min(maxDecompressedSize, Math.max(required, buffer.byteSize() * 2));
        final Arena newArena = newArena();
        final MemorySegment newBuffer = newArena.allocate(newCapacity, 8);
        MemorySegment.copy(buffer, 0, newBuffer, 0, used);
        if (!autoArena) {
            arena.close();
        }
        arena = newArena;
        buffer = newBuffer;
    }

    private long copyUncompressed(final MemorySegment source, final long offset, final long length) {
        ensureCapacity(length, 0, offset);
        MemorySegment.copy(source, offset, buffer, 0, length);
        return length;
    }

    // ------------------------------------------------------------------ gzip

    private long gunzip(final MemorySegment src, final long start, final long end) throws DataFormatException {
        if (inflater == null) {
            inflater = new Inflater(true);
            crc32 = new CRC32();
        }
        long pos = start;
        long out = 0;
        boolean first = true;
        while (true) {
            if (!first && (end - pos < 10 || !isGzipMagic(src, pos))) {
                // Like GZIPInputStream: bytes after a complete member that do not start another are ignored.
                return out;
            }
            first = false;
            pos = gzipHeader(src, pos, end);
            final long memberStart = out;
            final Inflater inf = inflater;
            inf.reset();
            inf.setInput(src.asSlice(pos, end - pos).asByteBuffer());
            int stalls = 0;
            while (!inf.finished()) {
                if (out == buffer.byteSize()) {
                    ensureCapacity(out + 1, out, pos);
                }
                final ByteBuffer dst =
                        buffer.asSlice(out, buffer.byteSize() - out).asByteBuffer();
                final int n = inf.inflate(dst);
                out += n;
                if (n == 0) {
                    if (inf.needsInput()) {
                        throw new CorruptException(end, "truncated deflate stream");
                    }
                    if (inf.needsDictionary()) {
                        throw new CorruptException(pos, "deflate stream needs a preset dictionary");
                    }
                    if (!inf.finished() && ++stalls > 4) {
                        throw new CorruptException(pos, "deflate stream makes no progress");
                    }
                } else {
                    stalls = 0;
                }
            }
            pos += inf.getBytesRead();
            if (end - pos < 8) {
                throw new CorruptException(pos, "truncated gzip trailer");
            }
            final CRC32 crc = crc32;
            crc.reset();
            if (out > memberStart) {
                crc.update(buffer.asSlice(memberStart, out - memberStart).asByteBuffer());
            }
            final int storedCrc = src.get(INT32_LE, pos);
            final int storedSize = src.get(INT32_LE, pos + 4);
            if (storedCrc != (int) crc.getValue()) {
                throw new CorruptException(pos, "gzip CRC-32 mismatch");
            }
            if (storedSize != (int) (out - memberStart)) {
                throw new CorruptException(pos + 4, "gzip size mismatch");
            }
            pos += 8;
        }
    }

    private static boolean isGzipMagic(final MemorySegment src, final long pos) {
        return src.get(ValueLayout.JAVA_BYTE, pos) == (byte) 0x1f
                && src.get(ValueLayout.JAVA_BYTE, pos + 1) == (byte) 0x8b;
    }

    /** Parses an RFC 1952 member header; returns the position of the deflate data. */
    private static long gzipHeader(final MemorySegment src, final long start, final long end) {
        if (end - start < 10) {
            throw new CorruptException(start, "truncated gzip header");
        }
        if (!isGzipMagic(src, start)) {
            throw new CorruptException(start, "not in gzip format");
        }
        if (src.get(ValueLayout.JAVA_BYTE, start + 2) != 8) {
            throw new CorruptException(start + 2, "unsupported gzip compression method");
        }
        final int flags = src.get(ValueLayout.JAVA_BYTE, start + 3) & 0xFF;
        if ((flags & 0xE0) != 0) {
            throw new CorruptException(start + 3, "reserved gzip flags set");
        }
        long pos = start + 10;
        if ((flags & 0x04) != 0) { // FEXTRA
            if (end - pos < 2) {
                throw new CorruptException(pos, "truncated gzip extra field");
            }
            final int xlen = src.get(INT16_LE, pos) & 0xFFFF;
            pos += 2;
            if (end - pos < xlen) {
                throw new CorruptException(pos, "truncated gzip extra field");
            }
            pos += xlen;
        }
        if ((flags & 0x08) != 0) { // FNAME
            pos = skipZeroTerminated(src, pos, end);
        }
        if ((flags & 0x10) != 0) { // FCOMMENT
            pos = skipZeroTerminated(src, pos, end);
        }
        if ((flags & 0x02) != 0) { // FHCRC
            if (end - pos < 2) {
                throw new CorruptException(pos, "truncated gzip header CRC");
            }
            pos += 2;
        }
        return pos;
    }

    private static long skipZeroTerminated(final MemorySegment src, final long start, final long end) {
        for (long p = start; p < end; p++) {
            if (src.get(ValueLayout.JAVA_BYTE, p) == 0) {
                return p + 1;
            }
        }
        throw new CorruptException(start, "unterminated gzip header string");
    }

    // ------------------------------------------------------------------ snappy (snappy-java stream framing)

    private long unsnappy(final MemorySegment src, final long start, final long end) throws java.io.IOException {
        long pos = start;
        if (!isSnappyHeader(src, pos, end)) {
            throw new CorruptException(pos, "missing snappy-java stream header");
        }
        pos += SNAPPY_HEADER_LENGTH;
        long out = 0;
        while (pos < end) {
            if (isSnappyHeader(src, pos, end)) {
                // Concatenated streams, as SnappyInputStream accepts them.
                pos += SNAPPY_HEADER_LENGTH;
                continue;
            }
            if (end - pos < 4) {
                throw new CorruptException(pos, "truncated snappy chunk length");
            }
            final int chunkLength = src.get(INT32_BE, pos);
            if (chunkLength < 0 || chunkLength > end - pos - 4) {
                throw new CorruptException(pos, "snappy chunk length " + chunkLength + " out of bounds");
            }
            pos += 4;
            if (chunkLength == 0) {
                continue;
            }
            final ByteBuffer in = src.asSlice(pos, chunkLength).asByteBuffer();
            if (!Snappy.isValidCompressedBuffer(in)) {
                throw new CorruptException(pos, "invalid snappy chunk");
            }
            final int uncompressedLength = Snappy.uncompressedLength(in);
            if (uncompressedLength < 0) {
                throw new CorruptException(pos, "invalid snappy uncompressed length");
            }
            ensureCapacity(out + uncompressedLength, out, pos);
            final ByteBuffer dst = buffer.asSlice(out, uncompressedLength).asByteBuffer();
            final int n = Snappy.uncompress(in, dst);
            if (n != uncompressedLength) {
                throw new CorruptException(pos, "snappy chunk decompressed to " + n + " bytes");
            }
            out += n;
            pos += chunkLength;
        }
        return out;
    }

    private static boolean isSnappyHeader(final MemorySegment src, final long pos, final long end) {
        if (end - pos < SNAPPY_HEADER_LENGTH) {
            return false;
        }
        for (int i = 0; i < SNAPPY_MAGIC.length; i++) {
            if (src.get(ValueLayout.JAVA_BYTE, pos + i) != SNAPPY_MAGIC[i]) {
                return false;
            }
        }
        return true;
    }

    // ------------------------------------------------------------------ lz4 (Kafka's LZ4 frame)

    private static final class Lz4 {
        static final LZ4SafeDecompressor DECOMPRESSOR =
                LZ4Factory.fastestInstance().safeDecompressor();
        static final XXHash32 XXHASH = XXHashFactory.fastestInstance().hash32();
    }

    private long unlz4(final MemorySegment src, final long start, final long end) {
        long pos = start;
        if (end - pos < 7) {
            throw new CorruptException(pos, "truncated lz4 frame header");
        }
        if (src.get(INT32_LE, pos) != LZ4_MAGIC) {
            throw new CorruptException(pos, "not an lz4 frame (bad magic)");
        }
        final ByteBuffer in = src.asSlice(start, end - start).asByteBuffer();
        pos += 4;
        final long descriptorStart = pos;
        final int flg = src.get(ValueLayout.JAVA_BYTE, pos) & 0xFF;
        final int bd = src.get(ValueLayout.JAVA_BYTE, pos + 1) & 0xFF;
        if ((flg & 0x03) != 0 || (flg >>> 6) != 1 || (flg & 0x20) == 0) {
            throw new CorruptException(pos, "unsupported lz4 FLG 0x" + Integer.toHexString(flg));
        }
        final int blockSizeId = (bd >>> 4) & 0x07;
        if ((bd & 0x8F) != 0 || blockSizeId < 4) {
            throw new CorruptException(pos + 1, "invalid lz4 BD 0x" + Integer.toHexString(bd));
        }
        final boolean blockChecksum = (flg & 0x10) != 0;
        final boolean contentSize = (flg & 0x08) != 0;
        final boolean contentChecksum = (flg & 0x04) != 0;
        final int maxBlockSize = 1 << (2 * blockSizeId + 8);
        pos += 2;
        if (contentSize) {
            pos += 8;
        }
        if (end - pos < 1) {
            throw new CorruptException(pos, "truncated lz4 frame descriptor");
        }
        final int hash = Lz4.XXHASH.hash(in, (int) (descriptorStart - start), (int) (pos - descriptorStart), 0);
        if (src.get(ValueLayout.JAVA_BYTE, pos) != (byte) ((hash >> 8) & 0xFF)) {
            throw new CorruptException(pos, "lz4 frame descriptor checksum mismatch");
        }
        pos++;
        long out = 0;
        ByteBuffer dst = buffer.asByteBuffer();
        while (true) {
            if (end - pos < 4) {
                throw new CorruptException(pos, "truncated lz4 block size");
            }
            final int word = src.get(INT32_LE, pos);
            pos += 4;
            final int blockSize = word & ~LZ4_INCOMPRESSIBLE_MASK;
            final boolean stored = (word & LZ4_INCOMPRESSIBLE_MASK) != 0;
            if (blockSize == 0) {
                if (contentChecksum) {
                    if (end - pos < 4) {
                        throw new CorruptException(pos, "truncated lz4 content checksum");
                    }
                    pos += 4;
                }
                return out;
            }
            if (blockSize > maxBlockSize || blockSize > end - pos) {
                throw new CorruptException(pos - 4, "lz4 block size " + blockSize + " out of bounds");
            }
            if (blockChecksum) {
                if (end - pos - blockSize < 4) {
                    throw new CorruptException(pos, "truncated lz4 block checksum");
                }
                final int actual = Lz4.XXHASH.hash(in, (int) (pos - start), blockSize, 0);
                if (actual != src.get(INT32_LE, pos + blockSize)) {
                    throw new CorruptException(pos, "lz4 block checksum mismatch");
                }
            }
            // Room for a whole block, but never past the limit: a last block that fits is decompressed into what is
            // left, one that does not fails as too large.
            final long room = Math.min(maxBlockSize, maxDecompressedSize - out);
            if (room <= 0 || (stored && blockSize > room)) {
                throw new TooLargeException(
                        pos, "decompressed size exceeds the limit of " + maxDecompressedSize + " bytes");
            }
            if (out + room > buffer.byteSize()) {
                ensureCapacity(out + room, out, pos);
                dst = buffer.asByteBuffer();
            }
            if (stored) {
                MemorySegment.copy(src, pos, buffer, out, blockSize);
                out += blockSize;
            } else {
                try {
                    out += Lz4.DECOMPRESSOR.decompress(in, (int) (pos - start), blockSize, dst, (int) out, (int) room);
                } catch (final net.jpountz.lz4.LZ4Exception e) {
                    if (room < maxBlockSize) {
                        throw new TooLargeException(
                                pos, "decompressed size exceeds the limit of " + maxDecompressedSize + " bytes");
                    }
                    throw e;
                }
            }
            pos += blockSize + (blockChecksum ? 4 : 0);
        }
    }

    // ------------------------------------------------------------------ zstd

    private long unzstd(final MemorySegment src, final long start, final long end) {
        if (zstd == null) {
            zstd = new ZstdDecompressCtx();
        }
        final ByteBuffer in = src.asSlice(start, end - start).asByteBuffer();
        if (!in.hasRemaining()) {
            throw new CorruptException(start, "empty zstd stream");
        }
        long out = 0;
        zstd.reset();
        while (true) {
            if (out == buffer.byteSize()) {
                ensureCapacity(out + 1, out, start + in.position());
            }
            final ByteBuffer dst = buffer.asSlice(out, buffer.byteSize() - out).asByteBuffer();
            final int inBefore = in.position();
            final boolean frameDone = zstd.decompressDirectByteBufferStream(dst, in);
            out += dst.position();
            if (frameDone) {
                if (!in.hasRemaining()) {
                    return out;
                }
                zstd.reset(); // another frame follows
                continue;
            }
            if (dst.hasRemaining() && in.position() == inBefore && dst.position() == 0) {
                throw new CorruptException(start + in.position(), "truncated zstd frame");
            }
        }
    }

    /**
     * Gives back a buffer grown past the initial capacity, replacing it with one of the initial size: after a large
     * batch, its memory is not kept for the next, usually small, one. Any slice into the old buffer then fails.
     */
    public void release() {
        if (closed || buffer.byteSize() <= initialCapacity) {
            return;
        }
        final Arena newArena = newArena();
        final MemorySegment newBuffer = newArena.allocate(initialCapacity, 8);
        if (!autoArena) {
            arena.close();
        }
        arena = newArena;
        buffer = newBuffer;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (!autoArena) {
            arena.close();
            if (inputArena != null) {
                inputArena.close();
            }
        }
        if (inflater != null) {
            inflater.end();
        }
        if (zstd != null) {
            zstd.close();
        }
    }
}
