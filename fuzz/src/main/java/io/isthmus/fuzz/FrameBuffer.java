package io.isthmus.fuzz;

import java.util.Arrays;

/**
 * A growable big-endian byte buffer with Kafka's primitive encodings, for frames that may be malformed on purpose:
 * nothing here checks that what it writes makes sense.
 */
final class FrameBuffer {
    private byte[] bytes;
    private int length;

    FrameBuffer(final int capacity) {
        this.bytes = new byte[Math.max(16, capacity)];
    }

    int length() {
        return length;
    }

    void clear() {
        length = 0;
    }

    private void ensure(final int more) {
        if (length + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + more));
        }
    }

    FrameBuffer put(final byte value) {
        ensure(1);
        bytes[length++] = value;
        return this;
    }

    FrameBuffer putShort(final int value) {
        ensure(2);
        bytes[length++] = (byte) (value >>> 8);
        bytes[length++] = (byte) value;
        return this;
    }

    FrameBuffer putInt(final int value) {
        ensure(4);
        bytes[length++] = (byte) (value >>> 24);
        bytes[length++] = (byte) (value >>> 16);
        bytes[length++] = (byte) (value >>> 8);
        bytes[length++] = (byte) value;
        return this;
    }

    FrameBuffer putLong(final long value) {
        putInt((int) (value >>> 32));
        return putInt((int) value);
    }

    FrameBuffer putBytes(final byte[] source, final int offset, final int count) {
        ensure(count);
        System.arraycopy(source, offset, bytes, length, count);
        length += count;
        return this;
    }

    FrameBuffer putBytes(final byte[] source) {
        return putBytes(source, 0, source.length);
    }

    FrameBuffer putUnsignedVarint(final int value) {
        int v = value;
        while ((v & ~0x7F) != 0) {
            put((byte) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        return put((byte) v);
    }

    FrameBuffer putVarint(final int value) {
        return putUnsignedVarint((value << 1) ^ (value >> 31));
    }

    FrameBuffer putVarlong(final long value) {
        long v = (value << 1) ^ (value >> 63);
        while ((v & ~0x7FL) != 0) {
            put((byte) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        return put((byte) v);
    }

    /** Overwrites the 4 bytes at {@code position}. */
    void setInt(final int position, final int value) {
        bytes[position] = (byte) (value >>> 24);
        bytes[position + 1] = (byte) (value >>> 16);
        bytes[position + 2] = (byte) (value >>> 8);
        bytes[position + 3] = (byte) value;
    }

    void setByte(final int position, final byte value) {
        bytes[position] = value;
    }

    byte byteAt(final int position) {
        return bytes[position];
    }

    /** Keeps the first {@code newLength} bytes. */
    void truncate(final int newLength) {
        length = Math.min(length, Math.max(0, newLength));
    }

    /** Inserts {@code count} copies of {@code value} at {@code position}. */
    void insert(final int position, final byte value, final int count) {
        ensure(count);
        System.arraycopy(bytes, position, bytes, position + count, length - position);
        Arrays.fill(bytes, position, position + count, value);
        length += count;
    }

    byte[] toArray() {
        return Arrays.copyOf(bytes, length);
    }

    byte[] array() {
        return bytes;
    }
}
