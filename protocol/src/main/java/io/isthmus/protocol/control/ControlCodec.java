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
        return Short.BYTES + (value == null ? 0 : utf8Length(value));
    }

    /**
     * Writes {@code value} at {@code offset}, encoding it straight into the segment (no byte[] on the way); returns the
     * bytes written. Malformed UTF-16 (a lone surrogate) becomes '?', as {@link String#getBytes} writes it.
     */
    public static int putString(final MemorySegment segment, final long offset, final String value) {
        if (value == null) {
            segment.set(INT16, offset, (short) -1);
            return Short.BYTES;
        }
        final int length = utf8Length(value);
        if (length > Short.MAX_VALUE) {
            throw new IllegalArgumentException("string too long for a control message: length=" + length);
        }
        segment.set(INT16, offset, (short) length);
        long position = offset + Short.BYTES;
        for (int i = 0; i < value.length(); i++) {
            final char c = value.charAt(i);
            if (c < 0x80) {
                segment.set(ValueLayout.JAVA_BYTE, position++, (byte) c);
            } else if (c < 0x800) {
                segment.set(ValueLayout.JAVA_BYTE, position++, (byte) (0xC0 | c >> 6));
                segment.set(ValueLayout.JAVA_BYTE, position++, (byte) (0x80 | c & 0x3F));
            } else if (isSurrogatePair(value, i)) {
                final int codePoint = Character.toCodePoint(c, value.charAt(++i));
                segment.set(ValueLayout.JAVA_BYTE, position++, (byte) (0xF0 | codePoint >> 18));
                segment.set(ValueLayout.JAVA_BYTE, position++, (byte) (0x80 | codePoint >> 12 & 0x3F));
                segment.set(ValueLayout.JAVA_BYTE, position++, (byte) (0x80 | codePoint >> 6 & 0x3F));
                segment.set(ValueLayout.JAVA_BYTE, position++, (byte) (0x80 | codePoint & 0x3F));
            } else if (Character.isSurrogate(c)) {
                segment.set(ValueLayout.JAVA_BYTE, position++, (byte) '?');
            } else {
                segment.set(ValueLayout.JAVA_BYTE, position++, (byte) (0xE0 | c >> 12));
                segment.set(ValueLayout.JAVA_BYTE, position++, (byte) (0x80 | c >> 6 & 0x3F));
                segment.set(ValueLayout.JAVA_BYTE, position++, (byte) (0x80 | c & 0x3F));
            }
        }
        return Short.BYTES + length;
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

    /** Bytes of {@code value} in UTF-8, as {@link #putString} writes them. */
    private static int utf8Length(final String value) {
        int length = 0;
        for (int i = 0; i < value.length(); i++) {
            final char c = value.charAt(i);
            if (c < 0x80) {
                length += 1;
            } else if (c < 0x800) {
                length += 2;
            } else if (isSurrogatePair(value, i)) {
                length += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                length += 1;
            } else {
                length += 3;
            }
        }
        return length;
    }

    private static boolean isSurrogatePair(final String value, final int index) {
        return Character.isHighSurrogate(value.charAt(index))
                && index + 1 < value.length()
                && Character.isLowSurrogate(value.charAt(index + 1));
    }
}
