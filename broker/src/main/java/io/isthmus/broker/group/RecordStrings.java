package io.isthmus.broker.group;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * How the records of {@code __consumer_offsets} ({@link GroupOffsetsLog}'s offsets, {@link MembershipRecord}) hold a
 * string: a 16-bit length, then its UTF-8 bytes; -1 and no bytes for null, where a field may be null.
 */
final class RecordStrings {
    private RecordStrings() {}

    /** Writes {@code bytes}, a string's UTF-8 bytes, or null for a null string. */
    static void put(final ByteBuffer buffer, final byte[] bytes, final String record) {
        if (bytes == null) {
            buffer.putShort((short) -1);
            return;
        }
        if (bytes.length > Short.MAX_VALUE) {
            throw new IllegalArgumentException("string longer than " + Short.MAX_VALUE + " bytes in " + record);
        }
        buffer.putShort((short) bytes.length);
        buffer.put(bytes);
    }

    /** Reads a string that may not be null. */
    static String read(final ByteBuffer buffer, final String record) {
        return read(buffer, record, false);
    }

    /** Reads a string that may be null. */
    static String readNullable(final ByteBuffer buffer, final String record) {
        return read(buffer, record, true);
    }

    private static String read(final ByteBuffer buffer, final String record, final boolean nullable) {
        final int length = buffer.getShort();
        if (length == -1 && nullable) {
            return null;
        }
        if (length < 0 || length > buffer.remaining()) {
            throw new IllegalStateException(
                    "malformed " + record + ": string of " + length + " bytes, " + buffer.remaining() + " left");
        }
        final String s = new String(buffer.array(), buffer.position(), length, StandardCharsets.UTF_8);
        buffer.position(buffer.position() + length);
        return s;
    }
}
