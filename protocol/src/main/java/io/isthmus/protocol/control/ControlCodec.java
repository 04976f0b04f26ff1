package io.isthmus.protocol.control;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The primitive types of control messages, as in the Kafka protocol: big-endian integers and strings as an int16 byte
 * length followed by UTF-8 bytes (-1 for null). Every read is bounds-checked by {@link MemorySegment}; a string whose
 * length runs past the message throws {@link IllegalArgumentException} with context.
 */
public final class ControlCodec {
    public static final ValueLayout.OfShort INT16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    public static final ValueLayout.OfInt INT32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    public static final ValueLayout.OfLong INT64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private ControlCodec() {}

    /** Bytes {@code value} takes as a string field. */
    public static int stringLength(final String value) {
        return Short.BYTES + (value == null ? 0 : utf8(value).length);
    }

    /** Writes {@code value} at {@code offset}; returns the bytes written. */
    public static int putString(final MemorySegment segment, final long offset, final String value) {
        if (value == null) {
            segment.set(INT16, offset, (short) -1);
            return Short.BYTES;
        }
        final byte[] bytes = utf8(value);
        if (bytes.length > Short.MAX_VALUE) {
            throw new IllegalArgumentException("string too long for a control message: length=" + bytes.length);
        }
        segment.set(INT16, offset, (short) bytes.length);
        MemorySegment.copy(bytes, 0, segment, ValueLayout.JAVA_BYTE, offset + Short.BYTES, bytes.length);
        return Short.BYTES + bytes.length;
    }

    /** Reads the string at {@code offset} (null for length -1). */
    public static String getString(final MemorySegment segment, final long offset) {
        final short length = segment.get(INT16, offset);
        if (length == -1) {
            return null;
        }
        if (length < 0 || offset + Short.BYTES + length > segment.byteSize()) {
            throw new IllegalArgumentException("string runs past the message: offset=" + offset + " length=" + length
                    + " messageLength=" + segment.byteSize());
        }
        final byte[] bytes = new byte[length];
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, offset + Short.BYTES, bytes, 0, length);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** Throws unless {@code length} bytes from {@code offset} lie inside {@code segment}. */
    public static void requireLength(
            final MemorySegment segment, final long offset, final long length, final String message) {
        if (offset < 0 || offset + length > segment.byteSize()) {
            throw new IllegalArgumentException("truncated " + message + ": offset=" + offset + " needed=" + length
                    + " available=" + (segment.byteSize() - offset));
        }
    }

    private static byte[] utf8(final String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }
}
