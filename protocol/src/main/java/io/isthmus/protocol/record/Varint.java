package io.isthmus.protocol.record;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Zig-zag varints and varlongs (protobuf style, byte-compatible with Kafka's {@code ByteUtils}) over
 * {@link MemorySegment}s.
 *
 * <p>Reads are bounded by an explicit {@code limit} (exclusive) as well as by the segment: a varint whose bytes run
 * past the limit, or that is longer than 5 bytes (10 for a varlong), raises an {@link InvalidRecordBatchException}
 * with reason {@link InvalidRecordBatchException.Reason#INVALID_VARINT}. Like Kafka, the high bits of the last
 * allowed byte are ignored, and non-canonical (padded) encodings are accepted.
 *
 * <p>Reading returns only the value; to know how many bytes were read use {@link Reader}, which keeps a position and
 * allocates nothing, or {@link #lengthOfVarintAt}.
 */
public final class Varint {
    public static final int MAX_VARINT_SIZE = 5;
    public static final int MAX_VARLONG_SIZE = 10;

    private static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;
    private static final ValueLayout.OfShort SHORT_LE =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private Varint() {}

    // ---------------------------------------------------------------- sizes

    /** Encoded size of a zig-zag varint. */
    public static int sizeOfVarint(final int value) {
        return sizeOfUnsignedVarint((value << 1) ^ (value >> 31));
    }

    /** Encoded size of a zig-zag varlong. */
    public static int sizeOfVarlong(final long value) {
        return sizeOfUnsignedVarlong((value << 1) ^ (value >> 63));
    }

    /** Encoded size of an unsigned (not zig-zag) varint. */
    public static int sizeOfUnsignedVarint(final int value) {
        // Number of significant bits, rounded up to 7-bit groups; 0 needs one byte.
        final int bits = 32 - Integer.numberOfLeadingZeros(value);
        return bits == 0 ? 1 : (bits + 6) / 7;
    }

    /** Encoded size of an unsigned (not zig-zag) varlong. */
    public static int sizeOfUnsignedVarlong(final long value) {
        final int bits = 64 - Long.numberOfLeadingZeros(value);
        return bits == 0 ? 1 : (bits + 6) / 7;
    }

    // ---------------------------------------------------------------- writes

    /** Writes a zig-zag varint at {@code position}; returns the number of bytes written. */
    public static int writeVarint(final MemorySegment segment, final long position, final int value) {
        return writeUnsignedVarint(segment, position, (value << 1) ^ (value >> 31));
    }

    /** Writes a zig-zag varlong at {@code position}; returns the number of bytes written. */
    public static int writeVarlong(final MemorySegment segment, final long position, final long value) {
        return writeUnsignedVarlong(segment, position, (value << 1) ^ (value >> 63));
    }

    /**
     * Writes an unsigned varint at {@code position}; returns the number of bytes written.
     *
     * <p>Why two fast paths: a record's varints (its length, deltas, key and value sizes, header count) are one or
     * two bytes long almost always, and each store into a segment pays its own bounds and liveness checks, so the
     * two-byte form goes out as one little-endian short instead of a loop of byte stores (profiled: the byte loop was
     * a third of the producer's per-record time with 100-byte records).
     */
    public static int writeUnsignedVarint(final MemorySegment segment, final long position, final int value) {
        if ((value & 0xFFFFFF80) == 0) {
            segment.set(BYTE, position, (byte) value);
            return 1;
        }
        if ((value & 0xFFFFC000) == 0) {
            segment.set(SHORT_LE, position, (short) ((value & 0x7F) | 0x80 | (value >>> 7) << 8));
            return 2;
        }
        return writeLongUnsignedVarint(segment, position, value);
    }

    private static int writeLongUnsignedVarint(final MemorySegment segment, final long position, final int value) {
        int v = value;
        long p = position;
        while ((v & 0xFFFFFF80) != 0) {
            segment.set(BYTE, p++, (byte) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        segment.set(BYTE, p++, (byte) v);
        return (int) (p - position);
    }

    /** Writes an unsigned varlong at {@code position}; returns the number of bytes written (see the varint's). */
    public static int writeUnsignedVarlong(final MemorySegment segment, final long position, final long value) {
        if ((value & 0xFFFFFFFFFFFFC000L) == 0L) {
            return writeUnsignedVarint(segment, position, (int) value);
        }
        long v = value;
        long p = position;
        while ((v & 0xFFFFFFFFFFFFFF80L) != 0L) {
            segment.set(BYTE, p++, (byte) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        segment.set(BYTE, p++, (byte) v);
        return (int) (p - position);
    }

    // ---------------------------------------------------------------- reads

    /** Reads a zig-zag varint at {@code position}, reading no byte at or past {@code limit}. */
    public static int readVarint(final MemorySegment segment, final long position, final long limit) {
        final int raw = readUnsignedVarint(segment, position, limit);
        return (raw >>> 1) ^ -(raw & 1);
    }

    /** Reads a zig-zag varlong at {@code position}, reading no byte at or past {@code limit}. */
    public static long readVarlong(final MemorySegment segment, final long position, final long limit) {
        final long raw = readUnsignedVarlong(segment, position, limit);
        return (raw >>> 1) ^ -(raw & 1);
    }

    /** Reads an unsigned varint at {@code position}, reading no byte at or past {@code limit}. */
    public static int readUnsignedVarint(final MemorySegment segment, final long position, final long limit) {
        final long end = Math.min(limit, segment.byteSize());
        int value = 0;
        int shift = 0;
        for (long p = position; ; p++) {
            if (p >= end || p < 0) {
                throw overrun(position, end, "varint");
            }
            final byte b = segment.get(BYTE, p);
            value |= (b & 0x7F) << shift;
            if (b >= 0) {
                return value;
            }
            shift += 7;
            if (shift >= 7 * MAX_VARINT_SIZE) {
                throw tooLong(position, MAX_VARINT_SIZE, "varint");
            }
        }
    }

    /** Reads an unsigned varlong at {@code position}, reading no byte at or past {@code limit}. */
    public static long readUnsignedVarlong(final MemorySegment segment, final long position, final long limit) {
        final long end = Math.min(limit, segment.byteSize());
        long value = 0;
        int shift = 0;
        for (long p = position; ; p++) {
            if (p >= end || p < 0) {
                throw overrun(position, end, "varlong");
            }
            final byte b = segment.get(BYTE, p);
            value |= (long) (b & 0x7F) << shift;
            if (b >= 0) {
                return value;
            }
            shift += 7;
            if (shift >= 7 * MAX_VARLONG_SIZE) {
                throw tooLong(position, MAX_VARLONG_SIZE, "varlong");
            }
        }
    }

    /** Number of bytes of the (valid) varint at {@code position}. */
    public static int lengthOfVarintAt(final MemorySegment segment, final long position, final long limit) {
        return lengthAt(segment, position, limit, MAX_VARINT_SIZE, "varint");
    }

    /** Number of bytes of the (valid) varlong at {@code position}. */
    public static int lengthOfVarlongAt(final MemorySegment segment, final long position, final long limit) {
        return lengthAt(segment, position, limit, MAX_VARLONG_SIZE, "varlong");
    }

    private static int lengthAt(
            final MemorySegment segment, final long position, final long limit, final int max, final String what) {
        final long end = Math.min(limit, segment.byteSize());
        for (int i = 0; i < max; i++) {
            final long p = position + i;
            if (p >= end || p < 0) {
                throw overrun(position, end, what);
            }
            if (segment.get(BYTE, p) >= 0) {
                return i + 1;
            }
        }
        throw tooLong(position, max, what);
    }

    private static InvalidRecordBatchException overrun(final long position, final long end, final String what) {
        return new InvalidRecordBatchException(
                InvalidRecordBatchException.Reason.INVALID_VARINT,
                -1,
                position,
                what,
                "a terminating byte before " + end,
                "no terminating byte");
    }

    private static InvalidRecordBatchException tooLong(final long position, final int max, final String what) {
        return new InvalidRecordBatchException(
                InvalidRecordBatchException.Reason.INVALID_VARINT,
                -1,
                position,
                what,
                "at most " + max + " bytes",
                "more than " + max + " bytes");
    }

    /**
     * A reusable cursor reading varints and fixed fields forward from a position, bounded by a limit. Allocates
     * nothing.
     */
    public static final class Reader {
        private MemorySegment segment;
        private long position;
        private long limit;

        /** Points the reader at {@code segment}, starting at {@code position}, reading nothing at or past limit. */
        public Reader reset(final MemorySegment segment, final long position, final long limit) {
            this.segment = segment;
            this.position = position;
            this.limit = Math.min(limit, segment.byteSize());
            return this;
        }

        public long position() {
            return position;
        }

        public void position(final long position) {
            this.position = position;
        }

        public long limit() {
            return limit;
        }

        public long remaining() {
            return limit - position;
        }

        public int readVarint() {
            final int raw = readUnsignedVarint();
            return (raw >>> 1) ^ -(raw & 1);
        }

        public long readVarlong() {
            final long raw = readUnsignedVarlong();
            return (raw >>> 1) ^ -(raw & 1);
        }

        public int readUnsignedVarint() {
            final long start = position;
            final long end = limit;
            final MemorySegment s = segment;
            if (start < end) {
                final byte first = s.get(BYTE, start);
                if (first >= 0) {
                    position = start + 1;
                    return first;
                }
            }
            int value = 0;
            int shift = 0;
            for (long p = start; ; p++) {
                if (p >= end || p < 0) {
                    throw overrun(start, end, "varint");
                }
                final byte b = s.get(BYTE, p);
                value |= (b & 0x7F) << shift;
                if (b >= 0) {
                    position = p + 1;
                    return value;
                }
                shift += 7;
                if (shift >= 7 * MAX_VARINT_SIZE) {
                    throw tooLong(start, MAX_VARINT_SIZE, "varint");
                }
            }
        }

        public long readUnsignedVarlong() {
            final long start = position;
            final long end = limit;
            final MemorySegment s = segment;
            long value = 0;
            int shift = 0;
            for (long p = start; ; p++) {
                if (p >= end || p < 0) {
                    throw overrun(start, end, "varlong");
                }
                final byte b = s.get(BYTE, p);
                value |= (long) (b & 0x7F) << shift;
                if (b >= 0) {
                    position = p + 1;
                    return value;
                }
                shift += 7;
                if (shift >= 7 * MAX_VARLONG_SIZE) {
                    throw tooLong(start, MAX_VARLONG_SIZE, "varlong");
                }
            }
        }

        /** Reads one byte; throws {@link InvalidRecordBatchException} (RECORD_OVERRUN) at the limit. */
        public byte readByte(final String field) {
            final long p = position;
            if (p >= limit || p < 0) {
                throw new InvalidRecordBatchException(
                        InvalidRecordBatchException.Reason.RECORD_OVERRUN,
                        -1,
                        p,
                        field,
                        "1 byte before " + limit,
                        "0 bytes left");
            }
            position = p + 1;
            return segment.get(BYTE, p);
        }

        /** Skips {@code n} bytes; throws {@link InvalidRecordBatchException} (RECORD_OVERRUN) past the limit. */
        public void skip(final long n, final String field) {
            if (n < 0 || n > limit - position) {
                throw new InvalidRecordBatchException(
                        InvalidRecordBatchException.Reason.RECORD_OVERRUN,
                        -1,
                        position,
                        field,
                        "at most " + (limit - position) + " bytes",
                        n + " bytes");
            }
            position += n;
        }
    }
}
